// HTTP fuzz over every operation of the hub's OpenAPI document (GET /api/openapi.json): forged
// credentials, hostile path parameters and bodies; a never-ending chunked upload; password spraying
// from one address; an admin rotating Butler's token; a caller flooding an offline agent with A2A
// tasks past the open-task cap (A2A_MAX_OPEN_TASKS, 100). No answer may be a 500; nothing that must
// be refused may be accepted.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { pick } from '../../bench/lib/plan.js';
import { rssKb } from '../../bench/lib/procfs.js';
import { int } from '../../bench/lib/stats.js';
import { MEMBER_PASSWORD } from '../../bench/lib/api.js';
import { crew } from '../lib/cast.js';
import { defineCheck } from '../lib/check.js';
import { forgedCredentials } from '../lib/forge.js';
import { sampleRss } from '../lib/rssSampler.js';
import { chunkedUpload } from '../lib/upload.js';
import { atLeast, atMost, equals, holds, info } from '../lib/verdict.js';
import type { Access, HttpFuzzParams, HttpFuzzResult, Operation } from '../gen/httpFuzz.js';

const BODY_LIMIT = 1024 * 1024;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const schema = z.looseObject({ $ref: z.string().optional(), required: z.array(z.string()).optional() });
const openapi = z.object({
  paths: z.record(
    z.string(),
    z.record(
      z.string(),
      z.looseObject({
        'x-access': z.string().optional(),
        requestBody: z.looseObject({ content: z.record(z.string(), z.looseObject({ schema: schema.optional() })) }).optional(),
      }),
    ),
  ),
  components: z.looseObject({ schemas: z.record(z.string(), schema).optional() }).optional(),
});
type Doc = z.infer<typeof openapi>;

/** What an operation's JSON body declares (following one $ref). */
function bodyOf(doc: Doc, op: Doc['paths'][string][string]): Operation['body'] {
  let s = op.requestBody?.content['application/json']?.schema;
  if (!s) return 'none';
  if (s.$ref) s = doc.components?.schemas?.[s.$ref.split('/').pop()!];
  return (s?.required?.length ?? 0) > 0 ? 'required' : 'optional';
}
const sum = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
const top = (m: Record<string, number>) =>
  Object.entries(m)
    .sort(([, a], [, b]) => b - a)
    .slice(0, 8)
    .map(([k, n]) => `${k} × ${n}`)
    .join('; ');

export default defineCheck({
  key: 'httpFuzz',
  title: 'HTTP fuzz over every route of the OpenAPI document',
  order: 60,
  settings: (plan) => ({
    requests: pick(plan, 3_000, 25_000),
    durationMs: pick(plan, 30_000, 240_000),
    concurrency: 16,
    uploadBytes: pick(plan, 30, 300) * 1024 * 1024,
    sprayNames: pick(plan, 40, 100),
    /** A2A SendMessage calls to an offline agent, one after another, by one fresh caller. */
    a2aFlood: 130,
    /** The hub's default A2A_MAX_OPEN_TASKS. */
    a2aCap: 100,
  }),
  async run(ctx, s) {
    const hub = await ctx.hub('httpfuzz', await ctx.newStore('httpfuzz'));
    const cast = await crew(ctx, hub, 'httpfuzz', 1, 1);
    const doc = openapi.parse(await fetch(`${hub.baseUrl}/api/openapi.json`).then((r) => r.json()));
    const operations: Operation[] = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({
        method: m.toUpperCase(),
        path,
        access: (item[m]!['x-access'] ?? 'authenticated') as Access,
        body: bodyOf(doc, item[m]!),
      })),
    );
    const params: HttpFuzzParams = {
      baseUrl: hub.baseUrl,
      operations,
      credentials: {
        forged: forgedCredentials(cast.adminToken, ctx.jwtSecret),
        member: cast.humans[0]!.token,
        agent: cast.agents[0]!.api_token,
        admin: cast.adminToken,
      },
      bodyLimitBytes: BODY_LIMIT,
      requests: s.requests,
      durationMs: s.durationMs,
      concurrency: s.concurrency,
      answersFile: join(ctx.answersDir, 'http-fuzz.txt'),
    };
    ctx.log(`httpFuzz: ${operations.length} operations, ${int(s.requests)} requests`);
    const gen = await ctx.generator('httpfuzz', 'chaos/gen/httpFuzz.ts');
    const fuzz = await gen.call<HttpFuzzResult>('fuzz', params, s.durationMs + 60_000);

    // A body that never ends: refused early (413), without the hub holding it.
    const rssBefore = rssKb(hub.pid) / 1024;
    const rss = sampleRss(hub.pid, 100, 4_000, () => undefined);
    const upload = await chunkedUpload(`${hub.baseUrl}/api/messages`, `Bearer ${cast.adminToken}`, s.uploadBytes);
    const uploadRss = rss.stop();

    // A caller opening task after task to an offline agent (each stays SUBMITTED, stored): refused past
    // the cap. Before the spraying, which throttles logins from this address.
    const flooder = await cast.api.createMember(cast.adminToken, `httpfuzz-a2a-${randomUUID().slice(0, 8)}`, MEMBER_PASSWORD);
    const flooderToken = (await cast.api.login(flooder.username, MEMBER_PASSWORD)).token;
    const offline = await cast.api.registerAgent(cast.adminToken, `httpfuzz-offline-${randomUUID().slice(0, 8)}`);
    ctx.secrets.add('api_token', offline.api_token);
    const flood = await a2aFlood(`${hub.baseUrl}/a2a/agents/${offline.username}`, flooderToken, s.a2aFlood);

    // Password spraying: one wrong password against many names (each tried once) from one address.
    const sprayed: number[] = [];
    for (let i = 0; i < s.sprayNames; i++) {
      const res = await fetch(`${hub.baseUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: i === 0 ? cast.humans[0]!.username : `spray-${i}`, password: 'Spring2026!' }),
      });
      sprayed.push(res.status);
      await res.arrayBuffer();
    }
    const throttled = sprayed.filter((st) => st === 429).length;

    // Butler (id 2) speaks for the hub: no admin may take its token.
    const rotate = await fetch(`${hub.baseUrl}/api/users/agents/2/token`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${cast.adminToken}` },
      body: '{}',
    });
    const rotateBody = await rotate.text();
    const admins = (await fetch(`${hub.baseUrl}/api/users?role=ADMIN`, { headers: { authorization: `Bearer ${cast.adminToken}` } }).then((r) =>
      r.json(),
    )) as unknown[];

    const byAccess: Record<string, number> = {};
    for (const o of operations) byAccess[o.access] = (byAccess[o.access] ?? 0) + 1;
    const accessCounts = Object.entries(byAccess)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    return {
      measured:
        `${int(fuzz.requests)} requests over ${operations.length} operations (${accessCounts}) from GET /api/openapi.json, ${s.concurrency} at a time: ${Object.keys(params.credentials.forged).length} forged credentials, a member's and an agent's on admin routes, ` +
        `hostile path parameters (traversal, overflow, injection, bad escapes), hostile bodies as admin (invalid JSON, wrong types, 20,000-deep nesting, over ${BODY_LIMIT} bytes, prototype keys). ` +
        `Then a chunked upload of up to ${s.uploadBytes / 2 ** 20} MB, ${s.sprayNames} logins with one password against different names from 127.0.0.1, an admin rotating Butler's token, ` +
        `and ${s.a2aFlood} A2A SendMessage calls by one member to an agent that is not connected.`,
      verdicts: [
        atLeast('requests answered', fuzz.requests - fuzz.networkErrors, s.requests),
        info(
          'answers by status',
          Object.entries(fuzz.byStatus)
            .map(([k, n]) => `${k} × ${int(n)}`)
            .join(', '),
        ),
        equals('answers of 500 (or above, but 501 and 503)', sum(fuzz.serverErrors), 0),
        equals('requests accepted that must be refused', sum(fuzz.wronglyAccepted), 0),
        equals('requests with no HTTP answer', fuzz.networkErrors, 0),
        info("answered by the dashboard, not the API (a '..' in the path left /api)", int(fuzz.dashboardAnswers)),
        holds(
          'chunked upload refused with 413',
          upload.status === 413,
          `${upload.status ?? upload.error} after ${int(upload.writtenBytes / 1024)} KB, ${Math.round(upload.ms)} ms`,
          '413',
        ),
        atMost('hub RSS added during the upload', uploadRss.peakMb - rssBefore, 64, ' MB'),
        atLeast('password spraying from one address: answers of 429', throttled, 1),
        holds(
          "an admin rotating Butler's token is refused",
          rotate.status >= 400,
          `${rotate.status}${rotate.ok ? " (Butler's new token handed out)" : ''}`,
          '4xx',
        ),
        equals('users with role ADMIN after the fuzz (prototype keys, spoofed roles)', admins.length, 1),
        equals(`A2A task flood to an offline agent: tasks opened of ${s.a2aFlood} (A2A_MAX_OPEN_TASKS ${s.a2aCap})`, flood.opened, s.a2aCap),
        equals('A2A task flood: the others refused with -32000 naming the limit', flood.refused, s.a2aFlood - s.a2aCap),
      ],
      notes: [
        ...(sum(fuzz.serverErrors) > 0 ? [`500s: ${top(fuzz.serverErrors)}`] : []),
        ...(sum(fuzz.wronglyAccepted) > 0 ? [`Wrongly accepted: ${top(fuzz.wronglyAccepted)}`] : []),
        ...(fuzz.samples.length > 0 ? [`Samples: ${fuzz.samples.slice(0, 5).join(' | ').slice(0, 1500)}`] : []),
        `A2A flood answers: ${Object.entries(flood.answers)
          .map(([k, n]) => `${k} × ${n}`)
          .join(', ')}.`,
        `Spraying answers: ${[...new Set(sprayed)].map((st) => `${st} × ${sprayed.filter((x) => x === st).length}`).join(', ')}. Butler rotation answer: ${rotate.status} ${rotateBody.replace(/"api_token":"[^"]+"/, '"api_token":"[redacted]"').slice(0, 160)}`,
      ],
    };
  },
});

/**
 * `count` A2A SendMessage calls (v1.0 JSON-RPC, returning at once) to `endpoint`, one after another:
 * how many opened a task, how many were refused for the open-task cap, and the answers by kind.
 */
async function a2aFlood(endpoint: string, token: string, count: number) {
  const answers: Record<string, number> = {};
  let opened = 0;
  let refused = 0;
  for (let i = 0; i < count; i++) {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: i,
        method: 'SendMessage',
        params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `job ${i}` }] }, configuration: { returnImmediately: true } },
      }),
    });
    const body = (await res.json().catch(() => ({}))) as { result?: { task?: unknown }; error?: { code?: number; message?: string } };
    const kind = body.result?.task ? 'task' : body.error ? `error ${body.error.code}` : `HTTP ${res.status}`;
    answers[kind] = (answers[kind] ?? 0) + 1;
    if (body.result?.task) opened++;
    else if (body.error?.code === -32000 && body.error.message?.includes('A2A_MAX_OPEN_TASKS')) refused++;
  }
  return { opened, refused, answers };
}
