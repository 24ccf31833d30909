import { describe, it, expect } from 'vitest';
import type { z } from 'zod';
import {
  createUserBody,
  idParams,
  listMessagesQuery,
  listUsersQuery,
  loginBody,
  mockChatBody,
  registerAgentBody,
  registerBody,
} from '../../../src/protocol/http.js';
import { formatZodError } from '../../../src/protocol/validation.js';

/** The client-facing sentence for input the schema rejects; fails the test if it is accepted. */
function messageFor(schema: z.ZodType, input: unknown): string {
  const result = schema.safeParse(input);
  if (result.success) expect.fail(`schema accepted ${JSON.stringify(input)}`);
  return formatZodError(result.error, input, schema);
}

const PASSWORD = 'correct-horse';

describe('formatZodError: strings', () => {
  it('names a missing field', () => {
    expect(messageFor(registerBody, { password: PASSWORD })).toBe('username is required');
  });

  it('treats null like a missing field', () => {
    expect(messageFor(registerBody, { username: null, password: PASSWORD })).toBe('username is required');
  });

  it('says a string is too long', () => {
    expect(messageFor(registerBody, { username: 'u'.repeat(65), password: PASSWORD })).toBe('username must be at most 64 characters');
  });

  it('accepts exactly 64 characters', () => {
    expect(registerBody.safeParse({ username: 'u'.repeat(64), password: PASSWORD }).success).toBe(true);
  });

  it('says an empty required field is required, as a missing one (wire.md §1)', () => {
    expect(messageFor(registerBody, { username: '', password: PASSWORD })).toBe('username is required');
    expect(messageFor(registerBody, { username: 'bob', password: '' })).toBe('password is required');
  });

  it('counts a blank required field as empty (it is trimmed first)', () => {
    expect(messageFor(registerBody, { username: '   ', password: PASSWORD })).toBe('username is required');
  });

  it('tells an optional field given blank or null what is wrong with the value', () => {
    expect(messageFor(registerAgentBody, { username: 'bob', api_token: '' })).toMatch(/^api_token must be at least 16 characters/);
    expect(messageFor(createUserBody, { username: 'bob', password: null })).toBe('password must be a string');
  });

  it('says the same without the schema as before (WebSocket frames, config)', () => {
    const result = registerBody.safeParse({ username: '', password: PASSWORD });
    expect(result.success || formatZodError(result.error, { username: '' })).toBe('username must not be empty');
  });

  it('gives the minimum length of a short password', () => {
    expect(messageFor(registerBody, { username: 'bob', password: 'short' })).toBe('password must be at least 8 characters');
  });

  it('names the expected type', () => {
    expect(messageFor(registerBody, { username: 5, password: PASSWORD })).toBe('username must be a string');
  });

  it('puts the field in front of a custom refinement message', () => {
    expect(messageFor(registerBody, { username: 'bob\u0007', password: PASSWORD })).toBe('username must not contain control characters');
    expect(messageFor(registerAgentBody, { username: 'agent', api_token: 'has spaces in it!!' })).toBe('api_token must be printable ASCII without spaces');
  });

  it('lists the allowed values of an enum', () => {
    expect(messageFor(createUserBody, { username: 'bob', role: 'BOSS' })).toBe('role must be one of ADMIN, MEMBER');
  });
});

describe('formatZodError: ids and numbers from strings', () => {
  it('says a non-numeric id must be a number', () => {
    expect(messageFor(idParams, { id: 'abc' })).toBe('id must be a number');
  });

  it('says a fractional id must be an integer', () => {
    expect(messageFor(idParams, { id: '1.5' })).toBe('id must be an integer');
  });

  for (const id of ['-1', '0']) {
    it(`says id ${id} must be at least 1`, () => {
      expect(messageFor(idParams, { id })).toBe('id must be at least 1');
    });
  }

  it('says a missing id is required', () => {
    expect(messageFor(idParams, {})).toBe('id is required');
  });

  it('coerces a valid id', () => {
    expect(idParams.parse({ id: '42' })).toEqual({ id: 42 });
  });

  it('gives the maximum of a limit', () => {
    expect(messageFor(listUsersQuery, { limit: '1001' })).toBe('limit must be at most 1000');
    expect(messageFor(listMessagesQuery, { limit: '201' })).toBe('limit must be at most 200');
  });

  it('accepts the maximum limit and defaults a missing one', () => {
    expect(listMessagesQuery.parse({ limit: '200' }).limit).toBe(200);
    expect(listMessagesQuery.parse({}).limit).toBe(50);
  });
});

describe('formatZodError: query enums', () => {
  it('lists the allowed message levels', () => {
    expect(messageFor(listMessagesQuery, { level: 'DEBUG' })).toBe('level must be one of INFO, WARNING, ERROR, SUCCESS');
  });

  it('lists the allowed telemetry types', () => {
    expect(messageFor(listMessagesQuery, { type: 'NOPE' })).toBe('type must be one of SYSTEM_LOG, WEATHER_UPDATE, CODE_REVIEW, SECURITY_ALERT');
  });

  it('treats an empty level as absent', () => {
    expect(listMessagesQuery.parse({ level: '' }).level).toBeUndefined();
  });
});

describe('formatZodError: the body as a whole', () => {
  for (const input of [null, undefined, 'hello', 42, [1, 2]]) {
    it(`rejects ${JSON.stringify(input) ?? 'undefined'} as not a JSON object`, () => {
      expect(messageFor(registerBody, input)).toBe('request body must be a JSON object');
    });
  }

  it('joins several problems with "; "', () => {
    expect(messageFor(registerBody, {})).toBe('username is required; password is required');
    expect(messageFor(loginBody, { username: '', password: '' })).toBe('username is required; password is required');
  });

  it('reports at most three problems, the first ones first', () => {
    const message = messageFor(mockChatBody, { type: 'NOPE' });
    expect(message).toBe('sender_username is required; receiver_username is required; content is required');
  });
});
