// A lean Server-Sent Events parser (the WHATWG event-stream format, as far as a Chat Completions
// stream uses it): bytes in, one callback per event with its joined `data` lines and its `event`
// name. Lines end with LF, CRLF or a lone CR, also when a chunk boundary splits the CRLF; comments
// and `id`/`retry` fields are skipped. It reads bytes, not decoded text: a line is decoded once it
// is whole (a line end is never inside a UTF-8 character), so a character cut by a chunk boundary
// needs no decoder, and only the values it keeps become strings. It keeps no more than the
// unfinished line between chunks.
export interface SseParser {
  feed(bytes: Buffer): void;
  /** The stream ended: a last line without its end is still read; an event without its blank line is dropped, as the format says. */
  end(): void;
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;
const DATA = Buffer.from('data');
const EVENT = Buffer.from('event');

/** Whether `line[start, end)` is the field name `name`. */
function isField(line: Buffer, start: number, end: number, name: Buffer): boolean {
  if (end - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (line[start + i] !== name[i]) return false;
  return true;
}

export function createSseParser(onEvent: (data: string, event: string | undefined) => void): SseParser {
  let pending: Buffer | undefined;
  let data: string | undefined;
  let event: string | undefined;
  /** The previous chunk ended in CR: a LF starting this one belongs to it. */
  let afterCr = false;

  function line(bytes: Buffer, start: number, end: number): void {
    if (start === end) {
      if (data !== undefined) onEvent(data, event);
      data = undefined;
      event = undefined;
      return;
    }
    if (bytes[start] === COLON) return;
    let colon = bytes.indexOf(COLON, start);
    if (colon < 0 || colon >= end) colon = end;
    let valueStart = colon < end ? colon + 1 : end;
    if (valueStart < end && bytes[valueStart] === SPACE) valueStart++;
    if (isField(bytes, start, colon, DATA)) {
      const value = bytes.toString('utf8', valueStart, end);
      data = data === undefined ? value : `${data}\n${value}`;
    } else if (isField(bytes, start, colon, EVENT)) event = bytes.toString('utf8', valueStart, end);
  }

  return {
    feed(chunk) {
      const bytes = pending ? Buffer.concat([pending, chunk]) : chunk;
      let start = !pending && afterCr && chunk[0] === LF ? 1 : 0;
      pending = undefined;
      afterCr = false;
      const length = bytes.length;
      // Line ends found with indexOf (memchr), not a loop over every byte.
      let lf = bytes.indexOf(LF, start);
      let cr = bytes.indexOf(CR, start);
      while (lf >= 0 || cr >= 0) {
        let end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
        line(bytes, start, end);
        if (end === cr) {
          if (end + 1 < length) {
            if (bytes[end + 1] === LF) end++;
          } else afterCr = true;
        }
        start = end + 1;
        if (lf >= 0 && lf < start) lf = bytes.indexOf(LF, start);
        if (cr >= 0 && cr < start) cr = bytes.indexOf(CR, start);
      }
      if (start < length) pending = bytes.subarray(start);
    },
    end() {
      if (pending) line(pending, 0, pending.length);
      pending = undefined;
    },
  };
}
