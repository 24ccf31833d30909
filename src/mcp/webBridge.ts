// The HTTP edge runs on uWS through ultimate-express; the MCP SDK serves web-standard Request →
// Response. This bridge turns one into the other: the request's body (already read, bounded) and
// headers into a Request whose signal aborts when the client hangs up (or the hub ends the request),
// and a Response back onto the Express response, streamed chunk by chunk (SSE included), respecting
// the response's backpressure and stopping as soon as the client is gone.
import type { Request as ExpressRequest, Response as ExpressResponse } from '../http/context.js';

/** Hop-by-hop headers the bridge does not copy onto the answer; uWS frames the body itself. */
const SKIPPED_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** The Request the SDK serves: the client's method, URL, headers and body; `signal` ends it. */
export function toWebRequest(req: ExpressRequest, body: Buffer | undefined, signal: AbortSignal): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const host = headers.get('host') ?? 'localhost';
  const url = new URL(req.originalUrl ?? req.url, `http://${host}`);
  const hasBody = body !== undefined && req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(url, { method: req.method, headers, body: hasBody ? new Uint8Array(body) : undefined, signal });
}

/**
 * Reads the request body, at most `limitBytes`; undefined when it is larger (the caller answers 413).
 * Rejects when the client goes away before the end.
 */
export function readBody(req: ExpressRequest, limitBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (value: Buffer | undefined, err?: Error) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) return finish(undefined);
      chunks.push(chunk);
    };
    const onEnd = () => finish(Buffer.concat(chunks));
    const onError = (err: Error) => finish(undefined, err);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * Calls `onGone` once when the client's connection closes before the answer is complete. ultimate-express
 * emits 'close' on the response's socket both then and when it finishes an answer; only the first
 * marks the response `aborted`. Returns the unsubscribe.
 */
export function onClientGone(res: ExpressResponse, onGone: () => void): () => void {
  const socket = res.socket;
  if (!socket) {
    onGone();
    return () => undefined;
  }
  const listener = () => {
    if ((res as { aborted?: boolean }).aborted) onGone();
  };
  socket.once('close', listener);
  return () => void socket.off('close', listener);
}

function waitForDrain(res: ExpressResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.once('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Writes `response` onto `res`: status, headers, then the body as it comes. Resolves when the body
 * has ended or the client is gone (`signal` aborted), never rejects: a body that fails midway ends
 * the answer where it is, which a streaming client reads as a dropped stream.
 */
export async function sendWebResponse(res: ExpressResponse, response: globalThis.Response, signal: AbortSignal): Promise<void> {
  res.status(response.status);
  response.headers.forEach((value, name) => {
    if (!SKIPPED_HEADERS.has(name)) res.setHeader(name, value);
  });
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      if (signal.aborted) return;
      const { done, value } = await reader.read();
      if (done) break;
      if (signal.aborted) return;
      if (value.byteLength === 0) continue;
      if (!res.write(Buffer.from(value.buffer, value.byteOffset, value.byteLength))) await waitForDrain(res, signal);
    }
    if (!signal.aborted) res.end();
  } catch {
    // The body failed (its stream was cancelled or errored): end what was sent so far.
    if (!signal.aborted && !res.writableEnded) res.end();
  } finally {
    signal.removeEventListener('abort', cancel);
    reader.releaseLock();
  }
}
