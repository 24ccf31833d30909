// Which store errors mean "not now" (HTTP 503 with Retry-After, a frame's `unavailable`) and which
// leave a PostgreSQL connection usable.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { breaksConnection, isConnectionFailure, isStoreUnavailable, isUniqueViolation, StoreUnavailableError } from '../../../src/store/errors.js';

const sqlError = (code: string) => Object.assign(new pg.DatabaseError('server said no', 0, 'error'), { code });
const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('store errors', () => {
  it('counts the store away or overloaded as unavailable, and a wrong request not', () => {
    for (const err of [
      new StoreUnavailableError('could not get a PostgreSQL connection'),
      sqlError('57P01'), // terminating connection due to administrator command
      sqlError('57014'), // statement timeout
      sqlError('53300'), // too many connections
      sqlError('08006'),
      withCode('SQLITE_BUSY'),
      withCode('SQLITE_BUSY_SNAPSHOT'),
    ])
      expect(isStoreUnavailable(err)).toBe(true);
    for (const err of [sqlError('23505'), sqlError('42P01'), withCode('SQLITE_CONSTRAINT_UNIQUE'), new TypeError('x is undefined'), undefined])
      expect(isStoreUnavailable(err)).toBe(false);
    expect(isUniqueViolation(sqlError('23505'))).toBe(true);
  });

  it('keeps a connection the server answered on, and discards one whose session or socket ended', () => {
    expect(breaksConnection(sqlError('42P01'))).toBe(false);
    expect(breaksConnection(sqlError('57014'))).toBe(false);
    expect(breaksConnection(sqlError('57P01'))).toBe(true);
    expect(breaksConnection(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionFailure(new Error('Query read timeout'))).toBe(true);
    expect(isConnectionFailure(withCode('ECONNRESET', 'read ECONNRESET'))).toBe(true);
    expect(isConnectionFailure(new TypeError('Cannot convert a BigInt value to a number'))).toBe(false);
  });
});
