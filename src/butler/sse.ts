// A lean Server-Sent Events parser (the WHATWG event-stream format, as far as a Chat Completions
// stream uses it): text in, one callback per event with its joined `data` lines and its `event`
// name. Lines end with LF, CRLF or a lone CR, also when a chunk boundary splits the CRLF; comments
// and `id`/`retry` fields are skipped. It keeps no more than the unfinished line between chunks.
export interface SseParser {
  /** Feeds decoded text (a UTF-8 decoder upstream keeps multi-byte characters whole). */
  feed(text: string): void;
  /** The stream ended: a last line without its end is still read; an event without its blank line is dropped, as the format says. */
  end(): void;
}

export function createSseParser(onEvent: (data: string, event: string | undefined) => void): SseParser {
  let pending = '';
  let data: string | undefined;
  let event: string | undefined;
  /** The previous chunk ended in CR: a LF starting this one belongs to it. */
  let afterCr = false;

  function line(text: string): void {
    if (text.length === 0) {
      if (data !== undefined) onEvent(data, event);
      data = undefined;
      event = undefined;
      return;
    }
    if (text.charCodeAt(0) === 58 /* : */) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* space */) value = value.slice(1);
    if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
    else if (field === 'event') event = value;
  }

  return {
    feed(text) {
      let start = 0;
      if (afterCr && text.charCodeAt(0) === 10) start = 1;
      afterCr = false;
      const length = text.length;
      for (let i = start; i < length; i++) {
        const c = text.charCodeAt(i);
        if (c !== 10 && c !== 13) continue;
        line(pending.length > 0 ? pending + text.slice(start, i) : text.slice(start, i));
        pending = '';
        if (c === 13) {
          if (i + 1 < length) {
            if (text.charCodeAt(i + 1) === 10) i++;
          } else afterCr = true;
        }
        start = i + 1;
      }
      if (start < length) pending += text.slice(start);
    },
    end() {
      if (pending.length > 0) line(pending);
      pending = '';
    },
  };
}
