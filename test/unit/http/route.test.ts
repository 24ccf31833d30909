// The route registrar's parts on their own: what a route object carries for the OpenAPI document and
// the parsers, and the access guards' refusals.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HubError } from '../../../src/errors.js';
import { createAccess } from '../../../src/http/auth.js';
import type { Request } from '../../../src/http/context.js';
import { inputReader, routeGroup } from '../../../src/http/route.js';
import { USERS } from '../../helpers/fakeApp.js';

const route = routeGroup<{ seen: unknown[] }>('tests');

describe('routeGroup', () => {
  const body = z.object({ name: z.string().trim().min(1) });
  const declared = route({
    method: 'POST',
    path: '/api/things/:id',
    access: 'admin',
    summary: 'Make a thing',
    params: z.object({ id: z.coerce.number().int() }),
    body,
    responses: { 201: { description: 'made' } },
    handler: ({ params, body }) => ({ id: params.id, name: body.name }),
  });

  it('keeps the documented fields, with the tag of its group and the schemas it parses with', () => {
    expect(declared).toMatchObject({ method: 'POST', path: '/api/things/:id', access: 'admin', tag: 'tests', summary: 'Make a thing', body });
    expect(declared.query).toBeUndefined();
    expect(declared.read.query).toBeUndefined();
  });

  it('parses with the declared schemas, refusing with the 400 texts of the validators', () => {
    expect(declared.read.params!({ id: '7' })).toEqual({ id: 7 });
    expect(declared.read.body!({ name: ' a ' })).toEqual({ name: 'a' });
    expect(() => declared.read.body!({})).toThrow(new HubError('bad_request', 'name is required'));
    expect(() => declared.read.body!([])).toThrow(new HubError('bad_request', 'request body must be a JSON object'));
  });

  it('documents a reader by its schema and parses with its function', () => {
    const schema = z.object({ n: z.number() });
    const withReader = route({
      method: 'GET',
      path: '/api/things',
      access: 'public',
      summary: 'Things',
      query: inputReader(schema, () => 'read'),
      responses: { 200: { description: 'things' } },
      handler: ({ query }) => query,
    });
    expect(withReader.query).toBe(schema);
    expect(withReader.read.query!({ n: 'x' })).toBe('read');
  });
});

describe('access guards', () => {
  const tokens = new Map([
    ['admin-token', USERS.admin],
    ['member-token', USERS.member],
    ['agent-token', USERS.agent],
  ]);
  const auth = { authenticate: (token: string) => Promise.resolve(tokens.get(token)) };
  const request = (authorization?: string) => ({ headers: authorization ? { authorization } : {} }) as unknown as Request;
  const refusal = async (promise: unknown) => {
    try {
      await promise;
      return undefined;
    } catch (err) {
      return err instanceof HubError ? `${err.status} ${err.message}` : String(err);
    }
  };
  const access = createAccess({ auth, isProduction: false, metricsToken: 'scrape' });

  it('lets anyone through a public route, with no caller, at once', () => {
    expect(access.guard('public')(request())).toBeUndefined();
  });

  it('refuses a missing or malformed header at once, before asking the auth service', () => {
    expect(() => access.guard('authenticated')(request())).toThrow('authorization header required');
    expect(() => access.guard('admin')(request('Basic abc'))).toThrow('invalid authorization header format');
  });

  it('settles the caller, or refuses by level', async () => {
    await expect(access.guard('authenticated')(request('Bearer agent-token'))).resolves.toBe(USERS.agent);
    expect(await refusal(access.guard('authenticated')(request('Bearer nobody')))).toBe('401 invalid token');
    expect(await refusal(access.guard('admin')(request('Bearer member-token')))).toBe('403 admin access required');
    expect(await refusal(access.guard('human', 'humans only here')(request('Bearer agent-token')))).toBe('403 humans only here');
    await expect(access.guard('human', 'humans only here')(request('Bearer member-token'))).resolves.toBe(USERS.member);
  });

  it('will not build a human guard without the text machines are refused with', () => {
    expect(() => access.guard('human')).toThrow();
  });

  it('refuses the mock routes in production after the credentials and before the role', async () => {
    const production = createAccess({ auth, isProduction: true, metricsToken: undefined });
    expect(await refusal(production.guard('admin-non-production')(request('Bearer member-token')))).toBe('403 mock endpoints are disabled in production');
    expect(await refusal(production.guard('admin-non-production')(request('Bearer nobody')))).toBe('401 invalid token');
    expect(await refusal(access.guard('admin-non-production')(request('Bearer member-token')))).toBe('403 admin access required');
  });

  it('asks for the metrics token only when one is set', () => {
    expect(access.guard('metrics')(request('Bearer scrape'))).toBeUndefined();
    expect(() => access.guard('metrics')(request('Bearer other'))).toThrow('invalid token');
    expect(createAccess({ auth, isProduction: false, metricsToken: undefined }).guard('metrics')(request())).toBeUndefined();
  });
});
