// The SSE parser Butler reads model streams with: events and characters split anywhere, every line ending, the fields it skips.
import { describe, expect, it } from 'vitest';
import { createSseParser } from '../../../src/butler/sse.js';

function parse(chunks: Array<string | Buffer>, end = true): Array<[string, string | undefined]> {
  const events: Array<[string, string | undefined]> = [];
  const parser = createSseParser((data, event) => events.push([data, event]));
  for (const chunk of chunks) parser.feed(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  if (end) parser.end();
  return events;
}

describe('SSE parser', () => {
  const stream = 'data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n';

  it('reads events whole, however the text is cut', () => {
    const expected: Array<[string, string | undefined]> = [
      ['{"a":1}', undefined],
      ['{"b":2}', undefined],
      ['[DONE]', undefined],
    ];
    expect(parse([stream])).toEqual(expected);
    // Every cut point, and one character at a time.
    for (let i = 0; i <= stream.length; i++) expect(parse([stream.slice(0, i), stream.slice(i)])).toEqual(expected);
    expect(parse([...stream])).toEqual(expected);
  });

  it('decodes UTF-8 values whole when a chunk cuts a character', () => {
    const bytes = Buffer.from('data: héllo ⟨1⟩ 🙂\n\nevent: ⟨e⟩\ndata: x\n\n');
    const expected: Array<[string, string | undefined]> = [
      ['héllo ⟨1⟩ 🙂', undefined],
      ['x', '⟨e⟩'],
    ];
    for (let i = 0; i <= bytes.length; i++) expect(parse([bytes.subarray(0, i), bytes.subarray(i)])).toEqual(expected);
    expect(parse([...bytes].map((b) => Buffer.from([b])))).toEqual(expected);
  });

  it('takes CRLF and lone CR line ends, also with CR and LF in different chunks', () => {
    expect(parse(['data: x\r\n\r\ndata: y\r\r'])).toEqual([
      ['x', undefined],
      ['y', undefined],
    ]);
    // A CRLF split over two chunks is one line end, not a line end and a blank line.
    expect(parse(['data: a\r', '\ndata: b\r\n', '\r\n'])).toEqual([['a\nb', undefined]]);
  });

  it('joins data lines, keeps the event name, and skips comments, ids and retries', () => {
    expect(parse([': keep-alive\n', 'event: error\nid: 7\nretry: 10\ndata: one\ndata:two\n\n'])).toEqual([['one\ntwo', 'error']]);
    // The name belongs to its event only.
    expect(parse(['event: error\ndata: e\n\ndata: next\n\n'])).toEqual([
      ['e', 'error'],
      ['next', undefined],
    ]);
  });

  it('drops an event the stream never finished, and dispatches nothing for blank lines alone', () => {
    expect(parse(['data: whole\n\ndata: half'])).toEqual([['whole', undefined]]);
    expect(parse(['\n\n\r\n'])).toEqual([]);
    // A field with no colon is a field with an empty value.
    expect(parse(['data\n\n'])).toEqual([['', undefined]]);
  });
});
