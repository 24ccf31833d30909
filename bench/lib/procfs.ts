// What the bench reads about a process from /proc (Linux only): resident memory and CPU time.
// These are read from outside, so the hub needs no instrumentation of its own.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

/** Clock ticks per second for /proc/<pid>/stat; 100 on every Linux we run on, asked once anyway. */
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** VmRSS of a process in KB. */
export function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]);
}

/** User + system CPU time of a process (all its threads), or of one of its threads, in milliseconds. */
export function cpuMs(pid: number, tid?: number): number {
  const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; the fields we want follow its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3, so utime (14) and stime (15) are at offsets 11 and 12.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLK_TCK;
}

/** CPU use of a process between two points, as a percentage of one core. */
export class CpuMeter {
  private readonly cpu0: number;
  private readonly wall0 = performance.now();
  constructor(private readonly pid: number) {
    this.cpu0 = cpuMs(pid);
  }
  percent(): number {
    const wall = performance.now() - this.wall0;
    return wall > 0 ? (100 * this.used()) / wall : 0;
  }
  /** CPU milliseconds the process used since the meter started. */
  used(): number {
    return cpuMs(this.pid) - this.cpu0;
  }
}

/** CPU time of each thread of a process, by thread id. */
function threadCpuMs(pid: number): Map<number, number> {
  const threads = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      threads.set(Number(tid), cpuMs(pid, Number(tid)));
    } catch {
      // The thread ended between readdir and read.
    }
  }
  return threads;
}

export interface ThreadCpu {
  /** The main (event-loop) thread, % of one core. */
  main: number;
  /** The busiest other threads (worker threads, V8's GC helpers, libuv's pool), % of one core each. */
  others: Array<{ tid: number; percent: number }>;
}

/**
 * CPU use per thread of a process. A Node server's JS runs on its main thread unless it starts
 * worker threads, so the main thread near 100 % means the event loop is the limit.
 */
export class ThreadCpuMeter {
  private readonly start: Map<number, number>;
  private readonly wall0 = performance.now();
  constructor(private readonly pid: number) {
    this.start = threadCpuMs(pid);
  }
  read(): ThreadCpu {
    const wall = performance.now() - this.wall0;
    const pct = (ms: number) => (wall > 0 ? (100 * ms) / wall : 0);
    const others: ThreadCpu['others'] = [];
    let main = 0;
    for (const [tid, ms] of threadCpuMs(this.pid)) {
      const used = pct(ms - (this.start.get(tid) ?? 0));
      if (tid === this.pid) main = used;
      else if (used >= 1) others.push({ tid, percent: used });
    }
    return { main, others: others.sort((a, b) => b.percent - a.percent).slice(0, 4) };
  }
}

/** Busy and total jiffies of the whole machine, from the first line of /proc/stat. */
function machineJiffies(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = fields[3]! + fields[4]!; // idle + iowait
  return { busy: total - idle, total };
}

/**
 * CPU use of the whole machine (every process and the kernel), in the same unit as CpuMeter (100 =
 * one core busy). Well above server + generators means something else was running during the run.
 */
export class MachineCpuMeter {
  private readonly start = machineJiffies();
  percent(): number {
    const end = machineJiffies();
    const total = end.total - this.start.total;
    return total > 0 ? (100 * os.cpus().length * (end.busy - this.start.busy)) / total : 0;
  }
}

interface ProcSample {
  ppid: number;
  cpuMs: number;
}

/** Every process's parent and CPU time; processes that vanish while being read are skipped. */
function processTable(): Map<number, ProcSample> {
  const table = new Map<number, ProcSample>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(name), { ppid: Number(fields[1]), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK });
    } catch {
      // Exited between readdir and read.
    }
  }
  return table;
}

/** Whether `pid` descends from `root` (kernel threads descend from pid 2 and never match). */
function descendsFrom(pid: number, root: number, table: Map<number, ProcSample>): boolean {
  for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
    if (p === root) return true;
    p = table.get(p)?.ppid ?? 0;
  }
  return false;
}

/**
 * CPU used by user processes that are not the bench or its children (a test suite someone else
 * runs, say), in % of one core. Kernel threads are left out: their work on our behalf (loopback
 * TCP, the filesystem journal) is not interference. Processes that both start and end between two
 * readings are missed.
 */
export class ForeignCpuMeter {
  private readonly start = processTable();
  private readonly wall0 = performance.now();
  percent(): number {
    const end = processTable();
    const wall = performance.now() - this.wall0;
    let used = 0;
    for (const [pid, sample] of end) {
      if (sample.ppid === 2 || pid === 2 || descendsFrom(pid, process.pid, end)) continue;
      used += sample.cpuMs - (this.start.get(pid)?.cpuMs ?? 0);
    }
    return wall > 0 ? (100 * used) / wall : 0;
  }
}

export interface Machine {
  cpuModel: string;
  cores: number;
  memoryMb: number;
  node: string;
  kernel: string;
  /** The hub's commit, with `+dirty` when src/ has uncommitted changes (others edit it concurrently). */
  hubCommit: string;
}

export function machine(): Machine {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  let hubCommit = 'unknown';
  try {
    hubCommit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    if (execFileSync('git', ['status', '--porcelain', '--', 'src'], { encoding: 'utf8' }).trim() !== '') hubCommit += '+dirty';
  } catch {
    // Not a git checkout: the commit stays unknown.
  }
  return {
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryMb: Math.round(os.totalmem() / 2 ** 20),
    node: process.version,
    kernel: os.release(),
    hubCommit,
  };
}

/** Kernel slab caches one TCP socket's file takes from (socket, inode, file, dentry, epoll entry). */
const SOCKET_SLABS = new Set(['TCP', 'sock_inode_cache', 'filp', 'dentry', 'epitem', 'eppoll_entry']);

/**
 * Kernel memory held for sockets, in KB: TCP buffer pages (/proc/net/sockstat `mem`) and the slab
 * objects of each socket's file (/proc/slabinfo, readable as root; NaN otherwise). Machine-wide:
 * the generators' ends of the connections are on this machine too, so a step's delta counts both.
 */
export function kernelSocketKb(): { buffersKb: number; slabKb: number } {
  const sockstat = readFileSync('/proc/net/sockstat', 'utf8');
  const pages = Number(/^TCP: .* mem (\d+)/m.exec(sockstat)?.[1] ?? NaN);
  let slabBytes = NaN;
  try {
    slabBytes = 0;
    for (const line of readFileSync('/proc/slabinfo', 'utf8').split('\n')) {
      const [name, active, , size] = line.split(/\s+/);
      if (SOCKET_SLABS.has(name!)) slabBytes += Number(active) * Number(size);
    }
  } catch {
    slabBytes = NaN;
  }
  return { buffersKb: pages * 4, slabKb: slabBytes / 1024 };
}

/** The per-process open-file limit (hard) this machine allows: a hub or generator holds at most about this many sockets. */
export const hardFileLimit = () => Number(execFileSync('bash', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).trim()) || 1024;
