// The hub's slow-consumer cut-offs (4011) as its log records them, by user and connection, and
// whether a reader it cut off was starved by its own machine rather than by the hub.
import { readFileSync } from 'node:fs';
import { longestStall, LOOP_STALL_FLOOR_MS, type LoopStall } from '../../bench/gen/loopStalls.js';
import { ms } from '../../bench/lib/stats.js';
import { CloseCode } from '../../src/protocol/errors.js';
import { STALL_MS } from '../../src/ws/open.js';
import { READ_WINDOW_BYTES } from '../../src/ws/outlet.js';
import { holds, type Verdict } from './verdict.js';

export interface CutOff {
  user: string;
  conn: number;
  /** When the hub logged the close (epoch ms). */
  at: number;
}

/** Every `websocket closed` line with code 4011 in a hub log. */
export function slowConsumerCloses(logFile: string): CutOff[] {
  const cut: CutOff[] = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('"msg":"websocket closed"')) continue;
    const entry = JSON.parse(line) as { time: string | number; conn: number; user?: string; code: number };
    if (entry.code !== CloseCode.slowConsumer) continue;
    cut.push({ user: entry.user ?? '?', conn: entry.conn, at: typeof entry.time === 'number' ? entry.time : Date.parse(entry.time) });
  }
  return cut;
}

/**
 * The longest a reader's process may stop at `bytesPerSecond` to its socket and still keep up: past
 * the read window frames wait for its pong, so a reader moves at most a window per round trip; one
 * whose pongs come later than the window lasts falls behind until WS_MAX_BUFFERED_BYTES wait (or a
 * ping waits STALL_MS) and is cut off.
 */
export const readerAllowanceMs = (bytesPerSecond: number) => Math.min(STALL_MS, (READ_WINDOW_BYTES / bytesPerSecond) * 1000);

/**
 * How far back from its close the hub may have judged a reader: frames waited for its pong, then
 * the ping went unanswered for up to STALL_MS.
 */
const JUDGED_OVER_MS = 2 * STALL_MS;
/** The hub's log and the generators' clocks are both wall clocks; this covers the closes' pacing too. */
const SLACK_MS = 250;

export interface ReaderCutOff extends CutOff {
  /** The readers' process's longest loop stall while the hub judged this socket. */
  stallMs: number;
  /** It stalled for at least the allowance: the hub was right to take it for a slow reader. */
  starved: boolean;
}

/**
 * Judges each reader cut-off by the readers' process's own loop stalls over the time the hub judged
 * it before the close: a reader whose process stalled at least `allowanceMs` was starved; one whose
 * process kept turning was cut off by a fault of the hub.
 */
export function judgeReaderCutOffs(cut: readonly CutOff[], stalls: readonly LoopStall[], allowanceMs: number): ReaderCutOff[] {
  return cut.map((c) => {
    const stallMs = longestStall(stalls, c.at - JUDGED_OVER_MS - SLACK_MS, c.at + SLACK_MS);
    return { ...c, stallMs, starved: stallMs >= allowanceMs };
  });
}

/** "N (conn 12 of alice: longest loop stall 40 ms, …)", the first three listed. */
export function describeReaders(cut: readonly ReaderCutOff[]): string {
  if (cut.length === 0) return 'none';
  const stall = (r: ReaderCutOff) => (r.stallMs === 0 ? `under ${LOOP_STALL_FLOOR_MS}` : ms(r.stallMs));
  const listed = cut.slice(0, 3).map((r) => `conn ${r.conn} of ${r.user}: longest loop stall ${stall(r)} ms`);
  return `${cut.length} (${listed.join('; ')}${cut.length > 3 ? '; …' : ''})`;
}

/**
 * The verdict on the reading dashboards: none cut off while its process kept up. A reader cut off
 * while its own process was starved is excused, and so not measured: when every reader was (a machine
 * too loaded to run the check), nothing was measured and the verdict fails instead of passing on no
 * evidence.
 */
export function readersVerdict(what: string, judged: readonly ReaderCutOff[], readerSockets: number): Verdict {
  const kept = judged.filter((r) => !r.starved);
  const measured = readerSockets - (judged.length - kept.length);
  if (measured <= 0) {
    return holds(what, false, `nothing measured: all ${readerSockets} were cut off while their process was starved`, 'none, of at least one measured');
  }
  return holds(what, kept.length === 0, `${describeReaders(kept)} (${measured} measured)`, 'none');
}
