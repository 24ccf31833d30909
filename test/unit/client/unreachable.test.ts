// How the client and the example agents name a request that got no answer: the place (without its
// query, which may carry a key) and the cause fetch buries in `cause`.
import { describe, expect, it } from 'vitest';
import { networkCause, safeUrl, unreachable } from '../../../src/client/unreachable.js';

const fetchFailed = (cause: unknown) => new TypeError('fetch failed', { cause });
const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('unreachable', () => {
  it.each<[string, unknown, string]>([
    ['a refused connection', fetchFailed(withCode('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED')), 'ECONNREFUSED'],
    ['every address refused', fetchFailed(Object.assign(new AggregateError([withCode('a', 'ECONNREFUSED')], ''), { code: 'ECONNREFUSED' })), 'ECONNREFUSED'],
    ['an unknown host', fetchFailed(withCode('getaddrinfo ENOTFOUND nowhere.invalid', 'ENOTFOUND')), 'ENOTFOUND'],
    ['a cause without a code', fetchFailed(new Error('other side closed')), 'other side closed'],
    ['a timeout', Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' }), 'timed out'],
    ['no Error at all', 'boom', 'boom'],
  ])('%s: %s', (_, err, cause) => {
    expect(networkCause(err)).toBe(cause);
  });

  it('names the URL without its query or credentials, keeps the original as the cause, and stays a TypeError', () => {
    const original = fetchFailed(withCode('refused', 'ECONNREFUSED'));
    const err = unreachable('weather API', 'https://user:pw@api.example/data/2.5/weather?appid=secret-key', original);
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('weather API at https://api.example/data/2.5/weather unreachable: ECONNREFUSED');
    expect(err.cause).toBe(original);
    expect(safeUrl('http://hub:8080/api/ws?token=t#x')).toBe('http://hub:8080/api/ws');
  });
});
