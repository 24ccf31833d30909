// Decoding one client frame: size, UTF-8 JSON, known type, payload shape. Returns a typed frame or
// the ERROR to answer with; nothing here throws, whatever the bytes are.
import { ClientFrameTypes, clientFrame, type ClientFrame } from '../protocol/frames.js';
import { formatZodError } from '../protocol/validation.js';
import type { FrameErrorCode } from '../protocol/errors.js';

export type Decoded = { ok: true; frame: ClientFrame } | { ok: false; code: FrameErrorCode; message: string; localId?: string };

const decoder = new TextDecoder('utf-8', { fatal: true });
const KNOWN = new Set<string>(ClientFrameTypes);

/** The client's local_id, when it gave a usable one, so an ERROR can name the frame it answers. */
function localIdOf(value: unknown): string | undefined {
  const id = (value as { local_id?: unknown }).local_id;
  return typeof id === 'string' && id.length > 0 && id.length <= 128 ? id : undefined;
}

export function decodeFrame(data: ArrayBuffer, isBinary: boolean, maxBytes: number): Decoded {
  if (data.byteLength > maxBytes) {
    return { ok: false, code: 'frame_too_large', message: `frame is ${data.byteLength} bytes; the limit is ${maxBytes}` };
  }
  if (isBinary) return { ok: false, code: 'invalid_frame', message: 'binary frames are not accepted; send JSON text' };
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(data));
  } catch {
    return { ok: false, code: 'invalid_json', message: 'frame is not valid JSON text' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, code: 'invalid_frame', message: 'frame must be a JSON object' };
  }
  const localId = localIdOf(value);
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') return { ok: false, code: 'invalid_frame', message: 'type is required', localId };
  if (!KNOWN.has(type)) {
    return { ok: false, code: 'unknown_type', message: `unknown frame type "${type.slice(0, 64)}"; expected one of ${ClientFrameTypes.join(', ')}`, localId };
  }
  const parsed = clientFrame.safeParse(value);
  if (!parsed.success) return { ok: false, code: 'invalid_payload', message: formatZodError(parsed.error, value), localId };
  return { ok: true, frame: parsed.data };
}

const LOCAL_ID = /"local_id"\s*:\s*("(?:[^"\\]|\\.){1,128}")/;
/** Frames longer than this are not searched for a local_id when refused undecoded. */
const HINT_SCAN_BYTES = 64 * 1024;

/**
 * The local_id of a frame refused before decoding (rate limit), found without parsing it, so the
 * ERROR names the frame and the client knows which ones to send again.
 */
export function localIdHint(data: ArrayBuffer, isBinary: boolean): string | undefined {
  if (isBinary || data.byteLength > HINT_SCAN_BYTES) return undefined;
  const match = LOCAL_ID.exec(Buffer.from(data).toString('utf8'));
  if (!match) return undefined;
  try {
    const id = JSON.parse(match[1]!) as string;
    return id.length > 0 && id.length <= 128 ? id : undefined;
  } catch {
    return undefined;
  }
}
