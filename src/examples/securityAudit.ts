// The security audit agent: scans a directory under its root for committed secrets and for lockfile
// entries that a local advisory file (or an advisory service) marks vulnerable, and sends the result
// as SECURITY_ALERT. Asked in chat (`audit [path]`) or by directive; a path outside the root is refused.
import { readFile, readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import semver from 'semver';
import * as z from 'zod';
import { safeUrl, unreachable } from '../client/unreachable.js';
import { AlertSeverities, type AlertSeverity, type SecurityAlertPayload, type SecurityFinding } from '../protocol/reports.js';
import { chatCommand, splitCommand, verbArgument, type AgentTools, type ExampleAgent } from './agent.js';
import { findSecrets } from './secrets.js';

export interface SecurityAuditOptions {
  /** Directories the agent may scan: this one and what is below it. */
  root: string;
  /** JSON file of advisories (see `advisoryList`). */
  advisoryFile?: string;
  /** An advisory service answering the same JSON; asked with SECURITY_API_KEY as bearer. */
  advisoryUrl?: string;
  apiKey?: string;
  fetch?: typeof fetch;
}

/** One known vulnerability: the package, the versions affected (a semver range) and how bad it is. */
export const advisory = z.object({
  id: z.string().min(1).max(100),
  package: z.string().min(1).max(214),
  vulnerable: z
    .string()
    .min(1)
    .max(200)
    .refine((r) => semver.validRange(r) !== null, 'must be a semver range'),
  severity: z.enum(AlertSeverities),
  title: z.string().max(500).optional(),
  fixed_in: z.string().max(100).optional(),
});
export const advisoryList = z.array(advisory).max(100_000);
export type Advisory = z.infer<typeof advisory>;

const SKIP_DIRS = new Set(['.git', 'node_modules', 'dist', 'build', 'coverage', '.next', '.cache', 'vendor']);
const LOCKFILES = new Set(['package-lock.json', 'npm-shrinkwrap.json']);
const MAX_FILE_BYTES = 1 << 20;
const MAX_FILES = 20_000;
const MAX_FINDINGS = 500;
const RANK: Record<AlertSeverity, number> = { low: 0, medium: 1, high: 2, critical: 3 };

/** name → versions pinned by an npm lockfile (v1 `dependencies`, v2/v3 `packages`). */
export function lockfileEntries(text: string): Array<{ name: string; version: string }> {
  const lock = JSON.parse(text) as { packages?: Record<string, { version?: unknown; name?: unknown }>; dependencies?: Record<string, unknown> };
  const entries: Array<{ name: string; version: string }> = [];
  if (lock.packages) {
    for (const [path, info] of Object.entries(lock.packages)) {
      const at = path.lastIndexOf('node_modules/');
      if (at < 0 || typeof info?.version !== 'string') continue;
      entries.push({ name: typeof info.name === 'string' ? info.name : path.slice(at + 'node_modules/'.length), version: info.version });
    }
    return entries;
  }
  const walk = (deps: Record<string, unknown> | undefined) => {
    for (const [name, info] of Object.entries(deps ?? {})) {
      const dep = info as { version?: unknown; dependencies?: Record<string, unknown> };
      if (typeof dep.version === 'string') entries.push({ name, version: dep.version });
      walk(dep.dependencies);
    }
  };
  walk(lock.dependencies);
  return entries;
}

async function* textFiles(dir: string, budget: { files: number }): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    if (budget.files <= 0) return;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) yield* textFiles(path, budget);
    } else if (entry.isFile()) {
      budget.files--;
      yield path;
    }
  }
}

/** Scans `dir` (a directory already checked to be under the root). */
export async function audit(dir: string, advisories: Advisory[]): Promise<{ files: number; findings: SecurityFinding[] }> {
  const findings: SecurityFinding[] = [];
  const byPackage = new Map<string, Advisory[]>();
  for (const a of advisories) byPackage.set(a.package, [...(byPackage.get(a.package) ?? []), a]);
  const budget = { files: MAX_FILES };
  let files = 0;
  for await (const path of textFiles(dir, budget)) {
    const info = await stat(path);
    if (info.size > MAX_FILE_BYTES) continue;
    const bytes = await readFile(path);
    if (bytes.subarray(0, 8192).includes(0)) continue; // binary
    files++;
    const text = bytes.toString('utf8');
    const file = relative(dir, path).split(sep).join('/');
    text.split('\n').forEach((line, index) => {
      for (const match of findSecrets(line)) {
        findings.push({ kind: 'secret', severity: match.rule.severity, rule: match.rule.id, file, line: index + 1, excerpt: match.excerpt });
      }
    });
    if (LOCKFILES.has(path.slice(path.lastIndexOf(sep) + 1))) {
      let entries: Array<{ name: string; version: string }>;
      try {
        entries = lockfileEntries(text);
      } catch {
        continue; // not a lockfile we can read; its secrets were still scanned
      }
      const seen = new Set<string>();
      for (const { name, version } of entries) {
        for (const a of byPackage.get(name) ?? []) {
          const key = `${a.id}@${version}`;
          if (seen.has(key) || !semver.valid(version) || !semver.satisfies(version, a.vulnerable)) continue;
          seen.add(key);
          const finding: SecurityFinding = { kind: 'vulnerable_dependency', severity: a.severity, file, package: name, version, advisory: a.id };
          if (a.title) finding.title = a.title;
          if (a.fixed_in) finding.fixed_in = a.fixed_in;
          findings.push(finding);
        }
      }
    }
    if (findings.length >= MAX_FINDINGS) break;
  }
  findings.sort((x, y) => RANK[y.severity] - RANK[x.severity]);
  return { files, findings: findings.slice(0, MAX_FINDINGS) };
}

export function createSecurityAuditAgent(options: SecurityAuditOptions): ExampleAgent {
  const root = resolve(options.root);
  let audits = 0;
  let lastSummary = '';

  async function loadAdvisories(): Promise<Advisory[]> {
    let raw: unknown;
    if (options.advisoryUrl) {
      const headers: Record<string, string> = { Accept: 'application/json' };
      if (options.apiKey) headers['Authorization'] = `Bearer ${options.apiKey}`;
      const where = safeUrl(options.advisoryUrl);
      let res: Response;
      try {
        res = await (options.fetch ?? fetch)(options.advisoryUrl, { headers, signal: AbortSignal.timeout(15_000) });
      } catch (err) {
        throw unreachable('advisory service', options.advisoryUrl, err);
      }
      if (!res.ok) throw new Error(`the advisory service at ${where} answered ${res.status}`);
      raw = await res.json().catch(() => {
        throw new Error(`the advisory service at ${where} answered with text that is not JSON`);
      });
    } else if (options.advisoryFile) {
      const file = options.advisoryFile;
      const text = await readFile(file, 'utf8').catch((err: unknown) => {
        throw new Error(`the advisory file ${file} cannot be read: ${(err as { code?: string }).code ?? String(err)}`);
      });
      try {
        raw = JSON.parse(text);
      } catch {
        throw new Error(`the advisory file ${file} is not JSON`);
      }
    } else {
      return [];
    }
    const parsed = advisoryList.safeParse(raw);
    if (!parsed.success)
      throw new Error(
        `the advisories are not a list of {id, package, vulnerable, severity}: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`,
      );
    return parsed.data;
  }

  /** `path` relative to the root (or absolute inside it). */
  function within(path: string): string {
    const target = resolve(root, path || '.');
    const rel = relative(root, target);
    if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${path} is outside the directory this agent may scan`);
    return target;
  }

  async function run(path: string, tools: AgentTools): Promise<string> {
    const dir = within(path);
    const shown = relative(root, dir) || '.';
    const advisories = await loadAdvisories();
    const { files, findings } = await audit(dir, advisories);
    audits++;
    if (findings.length === 0) {
      lastSummary = `${shown}: no findings in ${files} files`;
      await tools.client.log('INFO', `security audit of ${shown}: no findings in ${files} files`);
      return lastSummary;
    }
    const secrets = findings.filter((f) => f.kind === 'secret').length;
    const deps = findings.length - secrets;
    const severity = findings[0]!.severity;
    const parts = [
      secrets && `${secrets} committed secret${secrets === 1 ? '' : 's'}`,
      deps && `${deps} vulnerable dependenc${deps === 1 ? 'y' : 'ies'}`,
    ].filter(Boolean);
    lastSummary = `${shown}: ${parts.join(' and ')} (highest: ${severity}) in ${files} files`;
    const payload: SecurityAlertPayload = { severity, content: `Security audit of ${lastSummary}`, path: shown, findings };
    await tools.client.report('SECURITY_ALERT', payload);
    const lines = findings
      .slice(0, 20)
      .map((f) =>
        f.kind === 'secret'
          ? `- ${f.severity} ${f.file}:${f.line} ${f.rule}`
          : `- ${f.severity} ${f.file} ${f.package}@${f.version} ${f.advisory}${f.fixed_in ? ` (fixed in ${f.fixed_in})` : ''}`,
      );
    return [payload.content, ...lines].join('\n');
  }

  return {
    kind: 'security-audit',
    description: `scans directories under ${root} for committed secrets and vulnerable dependencies`,
    commands: ['audit [path]'],
    onChat: chatCommand({
      parse: verbArgument('audit'),
      hint: 'Ask me "audit" or "audit <path>" (relative to the directory I watch).',
      failure: 'the audit failed',
      run,
    }),
    async onDirective(command, tools) {
      const [verb, rest] = splitCommand(command);
      if (verb !== 'audit') throw new Error(`unknown directive "${verb}"; try help`);
      return run(rest, tools);
    },
    status: () => `security audit agent: ${audits} audit${audits === 1 ? '' : 's'} done${lastSummary ? `; last: ${lastSummary}` : ''}`,
  };
}
