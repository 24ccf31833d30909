// Summarises a V8 .cpuprofile (from `node --cpu-prof`): where the hub spent its own CPU time, by
// function and by module, as shares of its busy (non-idle) time.
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The part of a profile to summarise, in wall-clock (epoch ms) times taken by the bench. */
export interface ProfileWindow {
  from: number;
  to: number;
  /**
   * When the bench saw the process exit. The main thread's profile ends then, which anchors the
   * profiles' monotonic clock (shared by every thread of the process) to wall-clock time.
   */
  exitedAt: number;
}

/** Profile clock (µs) minus wall-clock (µs). */
type ClockOffset = number;

export interface Hotspot {
  name: string;
  where: string;
  selfMs: number;
  /** Share of busy time, percent. */
  share: number;
}

export interface ProfileSummary {
  file: string;
  /** `main` or `thread <id>` (a worker). */
  thread: string;
  /** What the summary covers (the measured runs, not start-up and set-up). */
  covers: string;
  busyMs: number;
  idleMs: number;
  functions: Hotspot[];
  modules: Hotspot[];
}

/** `file:///work/main/node_modules/xstate/dist/x.js` → `xstate/dist/x.js`; project files relative to the repo. */
function shortUrl(url: string, root: string): string {
  let u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('/node_modules/');
  if (nm >= 0) return u.slice(nm + '/node_modules/'.length);
  if (u.startsWith(root)) u = u.slice(root.length + 1);
  return u;
}

/** The module a frame belongs to: an npm package, a project file, node internals, or a V8 category. */
function moduleOf(frame: CallFrame, root: string): string {
  if (frame.url === '') return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  if (frame.url.startsWith('node:')) return 'node internals';
  const short = shortUrl(frame.url, root);
  if (frame.url.includes('/node_modules/')) {
    const parts = short.split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  return short;
}

function top(map: Map<string, { name: string; where: string; us: number }>, busyUs: number, n: number): Hotspot[] {
  return [...map.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, n)
    .map((h) => ({ name: h.name, where: h.where, selfMs: h.us / 1000, share: (100 * h.us) / busyUs }));
}

const readProfile = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;

export function summariseProfile(
  file: string,
  root: string,
  covers: string,
  window?: { from: number; to: number; offset: ClockOffset },
  thread = 'main',
  n = 25,
): ProfileSummary {
  const profile = readProfile(file);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const fromUs = window ? window.from * 1000 + window.offset : -Infinity;
  const toUs = window ? window.to * 1000 + window.offset : Infinity;
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time since the previous sample; it is charged to sample i.
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at >= fromUs && at <= toUs) selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });

  const functions = new Map<string, { name: string; where: string; us: number }>();
  const modules = new Map<string, { name: string; where: string; us: number }>();
  let idleUs = 0;
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    busyUs += us;
    const name = frame.functionName || '(anonymous)';
    // Line and column of the code V8 ran (tsx output for project files, close to but not the .ts lines).
    const where = frame.url ? `${shortUrl(frame.url, root)}:${frame.lineNumber + 1}:${frame.columnNumber + 1}` : '';
    const key = `${name} ${where}`;
    const f = functions.get(key) ?? { name, where, us: 0 };
    f.us += us;
    functions.set(key, f);
    const mod = moduleOf(frame, root);
    const m = modules.get(mod) ?? { name: mod, where: '', us: 0 };
    m.us += us;
    modules.set(mod, m);
  }
  return { file, thread, covers, busyMs: busyUs / 1000, idleMs: idleUs / 1000, functions: top(functions, busyUs, n), modules: top(modules, busyUs, 15) };
}

export function formatProfile(s: ProfileSummary): string {
  const lines = [
    `${s.file} (${s.thread} thread), ${s.covers}: busy ${(s.busyMs / 1000).toFixed(1)} s, idle ${(s.idleMs / 1000).toFixed(1)} s. ` +
      'Time in native code (SQLite statements, fsync, socket writes) counts as the self time of the JS function that called it.',
    '',
    '| self % | self ms | function | where |',
    '|---:|---:|---|---|',
    ...s.functions.map((h) => `| ${h.share.toFixed(1)} | ${Math.round(h.selfMs)} | ${h.name} | ${h.where} |`),
    '',
    '| self % | self ms | module |',
    '|---:|---:|---|',
    ...s.modules.map((h) => `| ${h.share.toFixed(1)} | ${Math.round(h.selfMs)} | ${h.name} |`),
  ];
  return lines.join('\n');
}

const MIN_THREAD_BUSY_MS = 500;

/** `CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile`: thread 0 is the main thread. */
const threadOf = (file: string) => Number(file.split('.')[4] ?? 0);

/**
 * Summarises every profile --cpu-prof wrote into `dir` (one per thread that was profiled), main
 * thread first, keeping a copy of each as `<keepAs>.cpuprofile` / `<keepAs>-thread<id>.cpuprofile`.
 */
export function summariseWritten(dir: string, keepAs: string, root: string, covers: string, window: ProfileWindow): ProfileSummary[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort((a, b) => threadOf(a) - threadOf(b));
  const main = files.find((f) => threadOf(f) === 0);
  if (!main) throw new Error(`no main-thread profile was written to ${dir}`);
  const offset = readProfile(join(dir, main)).endTime - window.exitedAt * 1000;
  mkdirSync(dirname(keepAs), { recursive: true });
  const summaries = files.map((f) => {
    const tid = threadOf(f);
    const kept = tid === 0 ? `${keepAs}.cpuprofile` : `${keepAs}-thread${tid}.cpuprofile`;
    copyFileSync(join(dir, f), kept);
    return summariseProfile(kept, root, covers, { from: window.from, to: window.to, offset }, tid === 0 ? 'main' : `thread ${tid}`);
  });
  // Threads that barely ran in the window (tsx's module-loader thread, say) would only add noise.
  return summaries.filter((s) => s.thread === 'main' || s.busyMs >= MIN_THREAD_BUSY_MS);
}
