// The /mcp credential check on its own: which header gets which answer and challenge, and that a
// personal access token never reaches the JWT/agent-token path (nor the other way).
import { describe, expect, it } from 'vitest';
import { createBearerCheck } from '../../../src/mcp/bearer.js';
import type { UserRow } from '../../../src/store/schema.js';

const user = (role: string, id = 7): UserRow => ({ id, username: `u${id}`, role }) as UserRow;
const PAT = `hubpat_${'a'.repeat(43)}`;

function check(known: { jwt?: UserRow; pat?: UserRow } = {}) {
  const asked: string[] = [];
  const bearer = createBearerCheck({
    authenticate: async (credential) => {
      asked.push(`auth:${credential}`);
      return credential === 'a.b.c' ? known.jwt : credential === 'agent-token' ? user('AGENT', 9) : undefined;
    },
    accessToken: async (credential) => {
      asked.push(`pat:${credential}`);
      return known.pat ? { user: known.pat, tokenId: 3 } : undefined;
    },
  });
  return { bearer, asked };
}

describe('the /mcp bearer check', () => {
  it('challenges a request without a credential, with no error code (RFC 6750 §3.1)', async () => {
    const { bearer, asked } = check();
    for (const header of [undefined, '']) {
      expect(await bearer(header)).toMatchObject({ ok: false, status: 401, challenge: 'Bearer realm="agent-hub"' });
    }
    expect(asked).toEqual([]);
  });

  it('answers a malformed header with invalid_request, without asking anyone', async () => {
    const { bearer, asked } = check();
    for (const header of ['Basic abc', 'Bearer', 'Bearer a b', 'token']) {
      const out = await bearer(header);
      expect(out, header).toMatchObject({ ok: false, status: 401 });
      expect(out.ok === false && out.challenge, header).toMatch(/^Bearer realm="agent-hub", error="invalid_request", error_description="/);
    }
    expect(asked).toEqual([]);
  });

  it('sends a personal access token to the token store only, and a JWT to the session check only', async () => {
    const member = user('MEMBER');
    const { bearer, asked } = check({ jwt: member, pat: member });
    expect(await bearer(`Bearer ${PAT}`)).toEqual({ ok: true, caller: { user: member, tokenId: 3 } });
    expect(await bearer('bearer   a.b.c  ')).toEqual({ ok: true, caller: { user: member } });
    expect(asked).toEqual([`pat:${PAT}`, 'auth:a.b.c']);
  });

  it('refuses unknown tokens with invalid_token and agents with 403 insufficient_scope', async () => {
    const { bearer } = check();
    expect(await bearer(`Bearer ${PAT}`)).toMatchObject({ ok: false, status: 401, challenge: expect.stringContaining('error="invalid_token"') });
    expect(await bearer('Bearer a.b.c')).toMatchObject({ ok: false, status: 401, challenge: expect.stringContaining('error="invalid_token"') });
    expect(await bearer('Bearer agent-token')).toMatchObject({ ok: false, status: 403, challenge: expect.stringContaining('error="insufficient_scope"') });
  });
});
