// Generator child for the WebSocket fuzz: sessions of hostile frames (one connection each, as an
// agent or a human), every answer matched to its frame, every close classified by the frame sent
// last; and floods past the rate limit whose ACKs are kept, to compare with what the hub stored.
import { appendFileSync } from 'node:fs';
import WebSocket from 'ws';
import { serve } from '../../bench/lib/rpc.js';
import { CloseCode } from '../../src/protocol/errors.js';
import { parseServerFrame } from './frames.js';
import { invalidUtf8, largeHostile, smallHostile, type Hostile, type Identity, type Victims } from './hostileFrames.js';

export interface FuzzParams {
  identities: Array<Identity & { url: string; name: string }>;
  victims: Victims;
  maxFrameBytes: number;
  frames: number;
  durationMs: number;
  concurrency: number;
  framesPerSession: number;
  /** One session in this many ends with a frame that is not UTF-8, one in `largeEvery` sends a large frame. */
  utf8Every: number;
  largeEvery: number;
  /** Where every server frame received is appended (the secrets scan reads it). */
  answersFile: string;
  /** Where the timeline of each session that left a frame unanswered is appended (what was sent, what came back, when). */
  traceFile: string;
}

export interface FuzzResult {
  sessions: number;
  frames: number;
  framesByKind: Record<string, number>;
  /** Frames with an expected answer that never got one while the connection stayed open. */
  unansweredByKind: Record<string, number>;
  /** Frames with an expected answer that the hub closed the connection on without answering, by a close that promises answers first. */
  closedUnansweredByKind: Record<string, number>;
  /** Of both, answered within LATE_WAIT_MS after the wait: slow, not lost. */
  lateByKind: Record<string, number>;
  /** ACKs to frames that must be refused. */
  wronglyAcceptedByKind: Record<string, number>;
  /** Frames expected to close the connection that got neither the close code nor an ERROR. */
  wrongCloseByKind: Record<string, number>;
  /** "<last kind sent> → <code>" for every close the hub made. */
  closesByKind: Record<string, number>;
  connectFailures: number;
  failureSamples: string[];
  errorCodes: Record<string, number>;
}

/**
 * The hub's closes for what the client sent that answer every frame taken before them first (ACK or
 * ERROR): too large (1009), rate limit (4008), invalid frames (4010).
 */
const ANSWERED_BEFORE_CLOSE = new Set<number>([CloseCode.tooLarge, CloseCode.rateLimited, CloseCode.invalidFrames]);
/** How long a session that left frames unanswered on an open connection still listens for them (slow or lost?). */
const LATE_WAIT_MS = 15_000;
const bump = (m: Record<string, number>, k: string, n = 1) => (m[k] = (m[k] ?? 0) + n);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function openWs(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: 15_000, maxPayload: 64 * 1024 * 1024 });
    ws.once('open', () => {
      ws.removeAllListeners('error');
      ws.on('error', () => undefined);
      resolve(ws);
    });
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
  });
}

async function session(p: FuzzParams, sessionNo: number, id: Identity & { url: string; name: string }, frames: Hostile[], r: FuzzResult): Promise<void> {
  let ws: WebSocket;
  try {
    ws = await openWs(id.url);
  } catch (err) {
    r.connectFailures++;
    if (r.failureSamples.length < 3) r.failureSamples.push(err instanceof Error ? err.message : String(err));
    return;
  }
  const opened = performance.now();
  const at = () => (performance.now() - opened).toFixed(1);
  /** The session's timeline, written out only when it leaves a frame unanswered. */
  const timeline: string[] = [];
  /** Frames counted as unanswered: an answer that still comes before the close is late, not lost. */
  const given = new Map<string, Hostile>();
  const pending = new Map<string, Hostile>();
  let idlessExpected = 0;
  /** Frames not matched by local_id that may get an ERROR or not: only an ERROR beyond them all can answer the last frame. */
  let idlessMaybe = 0;
  let idlessErrors = 0;
  let lastKind = 'none';
  let hubClose: number | undefined;
  let weClose = false;
  const answers: string[] = [];
  const closed = new Promise<void>((resolve) =>
    ws.on('close', (code) => {
      timeline.push(`${at()} ms closed with ${code}${weClose ? ' (our close)' : ''}`);
      if (!weClose) hubClose = code;
      resolve();
    }),
  );
  ws.on('message', (data) => {
    const text = data.toString();
    answers.push(text);
    const f = parseServerFrame(text);
    timeline.push(`${at()} ms  got ${f.type}${f.errorCode ? ` ${f.errorCode}` : ''} ${f.local_id ?? '(no local_id)'}`);
    if (f.type === 'ERROR') bump(r.errorCodes, f.errorCode ?? 'unreadable');
    const late = f.local_id === undefined ? undefined : given.get(f.local_id);
    if (late) {
      given.delete(f.local_id!);
      bump(r.lateByKind, late.kind);
    }
    const h = f.local_id === undefined ? undefined : pending.get(f.local_id);
    if (f.type === 'ERROR' && !h) idlessErrors++;
    if (!h) return;
    pending.delete(f.local_id!);
    if (f.type === 'ACK' && (h.expect.kind === 'error' || h.expect.kind === 'close')) bump(r.wronglyAcceptedByKind, h.kind);
  });
  for (const h of frames) {
    if (ws.readyState !== WebSocket.OPEN) break;
    const answered = h.localId !== undefined && (h.expect.kind === 'error' || h.expect.kind === 'close' || (h.expect.kind === 'ack' && id.role === 'agent'));
    if (answered) pending.set(h.localId!, h);
    else if (h.expect.kind === 'error') idlessExpected++;
    else if (h.expect.kind === 'either') idlessMaybe++;
    ws.send(h.data, { binary: h.binary });
    timeline.push(`${at()} ms sent ${h.kind}${h.localId ? ` ${h.localId}` : ''} (expects ${h.expect.kind}${answered ? '' : ', not matched'})`);
    lastKind = h.kind;
    bump(r.framesByKind, h.kind);
    r.frames++;
  }
  const last = frames.at(-1)!;
  const deadline = Date.now() + 5_000;
  while (hubClose === undefined && ws.readyState === WebSocket.OPEN && (pending.size > 0 || idlessErrors < idlessExpected) && Date.now() < deadline)
    await sleep(10);
  // A frame expected to end the connection: give the close (or the ERROR instead) time to arrive.
  if (last.expect.kind === 'close') {
    const until = Date.now() + 3_000;
    while (hubClose === undefined && idlessErrors <= idlessExpected + idlessMaybe && ws.readyState === WebSocket.OPEN && Date.now() < until) await sleep(10);
  }
  // A close frame from the hub leaves the socket CLOSING until the connection ends, and only then does
  // `ws` report the code: wait for it, so a connection the hub closed is not judged as one left open.
  if (hubClose === undefined && ws.readyState !== WebSocket.OPEN) await Promise.race([closed, sleep(3_000)]);
  if (hubClose === undefined) {
    for (const [lid, h] of pending) {
      bump(r.unansweredByKind, h.kind);
      given.set(lid, h);
    }
    if (idlessErrors < idlessExpected) bump(r.unansweredByKind, 'frames without a local_id', idlessExpected - idlessErrors);
  } else if (ANSWERED_BEFORE_CLOSE.has(hubClose)) {
    for (const [lid, h] of pending) {
      bump(r.closedUnansweredByKind, h.kind);
      given.set(lid, h);
    }
  }
  const unanswered = given.size > 0 || (hubClose === undefined && idlessErrors < idlessExpected);
  if (unanswered) {
    const state = hubClose === undefined ? 'open' : `closed by the hub with ${hubClose}`;
    timeline.push(
      `${at()} ms counted unanswered (connection ${state}): ${[...given.keys()].join(', ') || 'none by local_id'}; ${idlessErrors} of ${idlessExpected} ERRORs for frames without a local_id`,
    );
  }
  // Tell slow from lost: a connection still open gets a while longer for the answers counted missing.
  const lateUntil = Date.now() + LATE_WAIT_MS;
  while (given.size > 0 && ws.readyState === WebSocket.OPEN && Date.now() < lateUntil) await sleep(10);
  if (last.expect.kind === 'close') {
    const ok = (hubClose !== undefined && last.expect.codes.includes(hubClose)) || (hubClose === undefined && idlessErrors > idlessExpected + idlessMaybe);
    if (!ok) bump(r.wrongCloseByKind, last.kind);
  }
  if (hubClose !== undefined) bump(r.closesByKind, `${lastKind} → ${hubClose}`);
  if (ws.readyState === WebSocket.OPEN) {
    weClose = true;
    ws.close(1000, 'fuzz session done');
  }
  await Promise.race([closed, sleep(3_000)]);
  ws.terminate();
  if (answers.length > 0) appendFileSync(p.answersFile, `${answers.join('\n')}\n`);
  if (unanswered) {
    const when = new Date(Date.now() - (performance.now() - opened)).toISOString();
    appendFileSync(
      p.traceFile,
      `session ${sessionNo} as ${id.role} ${id.name}, opened ${when}:\n${timeline.map((l) => `  ${l}`).join('\n')}\n  (${given.size} never answered)\n\n`,
    );
  }
}

async function fuzz(p: FuzzParams): Promise<FuzzResult> {
  const r: FuzzResult = {
    sessions: 0,
    frames: 0,
    framesByKind: {},
    unansweredByKind: {},
    closedUnansweredByKind: {},
    lateByKind: {},
    wronglyAcceptedByKind: {},
    wrongCloseByKind: {},
    closesByKind: {},
    connectFailures: 0,
    failureSamples: [],
    errorCodes: {},
  };
  const deadline = Date.now() + p.durationMs;
  let n = 0;
  const worker = async () => {
    while (r.frames < p.frames && Date.now() < deadline) {
      const s = r.sessions++;
      const id = p.identities[s % p.identities.length]!;
      const lid = (k: number) => `fz.${s}.${k}`;
      const frames = Array.from({ length: p.framesPerSession }, (_, k) => smallHostile(n++, id, p.victims, lid(k)));
      if (s % p.largeEvery === 0) frames.push(largeHostile(s / p.largeEvery, p.maxFrameBytes, lid(p.framesPerSession)));
      else if (s % p.utf8Every === 0) frames.push(invalidUtf8(s / p.utf8Every));
      await session(p, s, id, frames, r);
    }
  };
  await Promise.all(Array.from({ length: p.concurrency }, worker));
  return r;
}

export interface FloodResult {
  sent: number;
  acked: string[];
  closeCode?: number;
  rateLimitedErrors: number;
}

/** One agent sends `count` SYSTEM_LOG frames as fast as it can, past the rate limit; keeps its ACKs. */
async function flood(p: { url: string; tag: string; count: number }): Promise<FloodResult> {
  const ws = await openWs(p.url);
  const result: FloodResult = { sent: 0, acked: [], rateLimitedErrors: 0 };
  const closed = new Promise<void>((resolve) => ws.on('close', (code) => ((result.closeCode = code), resolve())));
  ws.on('message', (data) => {
    const f = parseServerFrame(data.toString());
    if (f.type === 'ACK' && f.local_id) result.acked.push(f.local_id);
    if (f.type === 'ERROR' && f.errorCode === 'rate_limited') result.rateLimitedErrors++;
  });
  for (let k = 0; k < p.count && ws.readyState === WebSocket.OPEN; k++) {
    ws.send(JSON.stringify({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'fuzz-flood' }, local_id: `${p.tag}.${k}` }));
    result.sent++;
  }
  // Every ACK due must come before the close, or on the connection until it closes.
  await Promise.race([closed, sleep(10_000)]);
  ws.terminate();
  return result;
}

serve({ hello: () => ({ pid: process.pid }), fuzz, flood });
