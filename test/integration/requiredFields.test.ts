// wire.md §1 on every route: a required body field that is missing, null or empty reads
// `<field> is required`. The required fields come from the very schemas the routes parse with (a
// field whose schema refuses a missing value), so a new route is checked without being listed here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ROUTE_DOCS } from '../../src/http/openapi.js';
import type { RouteDoc } from '../../src/http/routeDocs.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { concrete } from '../helpers/routes.js';

/** The object schema of a body (under its pipes), or undefined for a body of another shape. */
function objectOf(schema: unknown): z.ZodObject | undefined {
  let current = schema;
  while (current instanceof z.ZodPipe) current = current.in instanceof z.ZodTransform ? current.out : current.in;
  return current instanceof z.ZodObject ? current : undefined;
}

function requiredFields(doc: RouteDoc): string[] {
  const body = objectOf(doc.body);
  if (!body) return [];
  return Object.entries(body.shape as Record<string, z.ZodType>)
    .filter(([, field]) => !field.safeParse(undefined).success)
    .map(([name]) => name);
}

const WITH_REQUIRED = ROUTE_DOCS.map((doc) => ({ name: `${doc.method} ${doc.path}`, doc, required: requiredFields(doc) })).filter((r) => r.required.length > 0);
/**
 * The older dashboards' ops routes answer with the older hub's own sentence, which their panels show
 * (README "Ops panels of the older dashboards"); every other route follows wire.md §1.
 */
const OLDER_HUB_SENTENCES: Record<string, string> = {
  'POST /api/users/ops/ssh-keys': 'ssh key name and private key are required',
  'PATCH /api/users/ops/ssh-keys/:id': 'ssh key name is required',
  'POST /api/users/ops/nodes': 'name, host, ssh_user, and ssh_key_id are required',
  'PATCH /api/users/ops/nodes/:id': 'name, host, ssh_user, and ssh_key_id are required',
};
/** What a body without its required fields is told: the first three, in the schema's order. */
const expected = (name: string, required: string[]) =>
  OLDER_HUB_SENTENCES[name] ??
  required
    .slice(0, 3)
    .map((f) => `${f} is required`)
    .join('; ');

describe('required body fields', () => {
  let t: TestHub;
  beforeAll(async () => {
    // Self-registration on, so the register route answers about its body rather than the switch.
    t = await startTestHub('sqlite', { ALLOW_SELF_REGISTRATION: 'true' });
  });
  afterAll(() => t.stop());

  it('says a blank (trimmed) username or name is required where the hub trims it', async () => {
    expect(await t.api.post('/api/users/agents', { username: '   ' }, { token: t.adminToken })).toMatchObject({
      status: 400,
      body: { error: 'username is required' },
    });
    expect(await t.api.post('/api/users', { username: ' ' }, { token: t.adminToken })).toMatchObject({ status: 400, body: { error: 'username is required' } });
    expect(await t.api.post('/api/dev/mock/feishu-log', { level: ' ', action: ' ', detail: ' ' }, { token: t.adminToken })).toMatchObject({
      status: 400,
      body: { error: 'level is required; action is required; detail is required' },
    });
  });

  it('finds the routes with required body fields', () => {
    expect(WITH_REQUIRED.map((r) => r.name)).toEqual(
      expect.arrayContaining(['POST /api/users/agents', 'POST /api/users', 'POST /api/auth/login', 'POST /api/chat/threads', 'POST /api/dev/mock/feishu-log']),
    );
  });

  it.each(WITH_REQUIRED)('$name: a missing, null or empty required field is required', async ({ name, doc, required }) => {
    const send = (body: unknown) => t.api.request(doc.method, concrete(doc.path), { token: t.adminToken, body });
    const message = expected(name, required);
    const blank = (value: unknown) => Object.fromEntries(required.map((f) => [f, value]));
    for (const body of [{}, blank(null), blank('')]) {
      expect(await send(body), JSON.stringify(body)).toMatchObject({ status: 400, body: { error: message } });
    }
  });

  it('POST /api/messages (either form) names its missing fields the same way', async () => {
    const post = (body: unknown) => t.api.post('/api/messages', body, { token: t.adminToken });
    expect(await post({ level: 'INFO' })).toMatchObject({ status: 400, body: { error: 'content is required' } });
    expect(await post({ level: 'INFO', content: '' })).toMatchObject({ status: 400, body: { error: 'content is required' } });
    expect(await post({ level: '', content: 'disk full' })).toMatchObject({ status: 400, body: { error: 'level is required' } });
    expect(await post({ type: 'SYSTEM_LOG' })).toMatchObject({ status: 400, body: { error: 'payload is required' } });
  });
});
