// A2A discovery against a real hub, read by the official SDK's card resolver and client factory:
// the hub's card (Butler), one card per agent from its row (description and skills an admin sets),
// the catalogue per caller, bearer security, ETag/Cache-Control, the credential rule
// (A2A_PUBLIC_CARDS) and the origin a card names behind a trusted proxy.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, cardResolver } from '../helpers/a2aClient.js';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, uniqueName, type TestHub } from '../helpers/hub.js';

const SKILLS = [{ id: 'forecast', name: 'Forecast', description: 'The forecast for a city', tags: ['weather'], examples: ['Oslo tomorrow?'] }];

describeEachDriver('A2A agent cards', (driver) => {
  let t: TestHub;
  let member: { id: number; token: string };
  let agent: { id: number; username: string; api_token: string };
  beforeAll(async () => {
    t = await startTestHub(driver);
    member = await t.createMember();
    const name = uniqueName('weather');
    const res = await t.api.post(
      '/api/users/agents',
      { username: name, agent_kind: 'weather', description: 'Weather for any city', skills: SKILLS },
      { token: t.adminToken },
    );
    expect(res.status).toBe(201);
    agent = { id: res.body.id, username: name, api_token: res.body.api_token };
  });
  afterAll(() => t.stop());

  it("serves an agent's card built from its row, read by the SDK's resolver", async () => {
    const card = await cardResolver(member.token).resolve(`${t.url}/a2a/agents/${agent.username}/`);
    expect(card.name).toBe(agent.username);
    expect(card.description).toBe('Weather for any city');
    expect(card.skills.map((s) => ({ id: s.id, name: s.name, tags: s.tags, examples: s.examples }))).toEqual([
      { id: 'forecast', name: 'Forecast', tags: ['weather'], examples: ['Oslo tomorrow?'] },
    ]);
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion])).toEqual([
      [`${t.url}/a2a/agents/${agent.username}`, 'JSONRPC', '1.0'],
      [`${t.url}/a2a/agents/${agent.username}`, 'JSONRPC', '0.3'],
    ]);
    expect(card.securitySchemes['bearer']?.scheme).toMatchObject({ $case: 'httpAuthSecurityScheme', value: { scheme: 'Bearer' } });
    expect(card.securityRequirements.map((r) => Object.keys(r.schemes))).toEqual([['bearer']]);
  });

  it("serves the hub's card (Butler) at the well-known path, through the SDK's client factory", async () => {
    const client = await a2aClient(t.url, agent.api_token);
    const card = await client.getAgentCard();
    expect(card.name).toBe('Butler');
    expect(card.skills.map((s) => s.id)).toEqual(['ask', 'command', 'relay']);
    expect(card.supportedInterfaces[0]!.url).toBe(`${t.url}/a2a/agents/Butler`);
  });

  it('refuses a card without a credential (401), an unknown agent and a human (404)', async () => {
    for (const path of ['/.well-known/agent-card.json', `/a2a/agents/${agent.username}/.well-known/agent-card.json`]) {
      const res = await t.api.get(path);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'authorization header required' });
      expect((await t.api.get(path, { token: 'not-a-token' })).status).toBe(401);
    }
    expect(await t.api.get('/a2a/agents/nobody-here/.well-known/agent-card.json', { token: member.token })).toMatchObject({ status: 404 });
    expect(await t.api.get('/a2a/agents/admin/.well-known/agent-card.json', { token: member.token })).toMatchObject({ status: 404 });
    await expect(cardResolver(undefined).resolve(`${t.url}/a2a/agents/${agent.username}/`)).rejects.toThrow(/401/);
  });

  it('sends ETag and Cache-Control, answers 304 to a matching If-None-Match, and a changed card gets a new ETag', async () => {
    const path = `/a2a/agents/${agent.username}/.well-known/agent-card.json`;
    const first = await t.api.get(path, { token: member.token });
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('private, max-age=300');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await t.api.get(path, { token: member.token, headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(again.body).toBeUndefined();

    const patched = await t.api.patch(
      `/api/users/agents/${agent.id}/card`,
      { skills: [{ id: 'alerts', name: 'Alerts', description: 'Storm alerts' }] },
      { token: t.adminToken },
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      id: agent.id,
      username: agent.username,
      description: 'Weather for any city',
      skills: [{ id: 'alerts', name: 'Alerts', description: 'Storm alerts', tags: [], examples: [] }],
    });
    const changed = await t.api.get(path, { token: member.token, headers: { 'If-None-Match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.body.skills).toEqual([{ id: 'alerts', name: 'Alerts', description: 'Storm alerts', tags: ['weather'] }]);
    // The older wire format is unchanged: the agent list carries no skills.
    const listed = await t.api.get(`/api/users/agents?q=${agent.username}`, { token: member.token });
    expect(Object.keys(listed.body[0])).not.toContain('skills');
  });

  it("refuses to change Butler's card (403), a member's change (403) and bad skills (400)", async () => {
    expect((await t.api.patch('/api/users/agents/2/card', { description: 'x' }, { token: t.adminToken })).status).toBe(403);
    expect((await t.api.patch(`/api/users/agents/${agent.id}/card`, { description: 'x' }, { token: member.token })).status).toBe(403);
    const dup = await t.api.patch(`/api/users/agents/${agent.id}/card`, { skills: [SKILLS[0], SKILLS[0]] }, { token: t.adminToken });
    expect(dup.status).toBe(400);
    expect(dup.body.error).toMatch(/skill ids must be unique/);
    expect((await t.api.patch(`/api/users/agents/${agent.id}/card`, {}, { token: t.adminToken })).status).toBe(400);
  });

  it('lists the cards a caller may use: a human gets Butler and the agents, an agent only Butler', async () => {
    const forMember = await t.api.get('/a2a/agents', { token: member.token });
    expect(forMember.status).toBe(200);
    expect(forMember.body[0]).toEqual({
      name: 'Butler',
      description: expect.any(String),
      kind: 'butler',
      online: true,
      card_url: `${t.url}/a2a/agents/Butler/.well-known/agent-card.json`,
      endpoint_url: `${t.url}/a2a/agents/Butler`,
    });
    expect(forMember.body.map((e: { name: string }) => e.name)).toContain(agent.username);
    const forAgent = await t.api.get('/a2a/agents', { token: agent.api_token });
    expect(forAgent.body.map((e: { name: string }) => e.name)).toEqual(['Butler']);
    expect((await t.api.get('/a2a/agents')).status).toBe(401);
  });
});

describe('A2A cards: public cards and the origin behind a proxy', () => {
  let t: TestHub | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });
  const forwarded = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'hub.example.com:8443' };

  it('serves cards without a credential when A2A_PUBLIC_CARDS=true (a wrong one is still refused)', async () => {
    t = await startTestHub('sqlite', { A2A_PUBLIC_CARDS: 'true' });
    const res = await t.api.get('/.well-known/agent-card.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect((await cardResolver(undefined).resolve(t.url)).name).toBe('Butler');
    expect((await t.api.get('/.well-known/agent-card.json', { token: 'not-a-token' })).status).toBe(401);
    expect((await t.api.get('/a2a/agents')).status).toBe(401);
  });

  it('names the origin a trusted proxy forwarded, and ignores those headers from anyone else', async () => {
    t = await startTestHub('sqlite', { TRUST_PROXY: 'loopback' });
    const viaProxy = await t.api.get('/.well-known/agent-card.json', { token: t.adminToken, headers: forwarded });
    expect(viaProxy.body.supportedInterfaces[0].url).toBe('https://hub.example.com:8443/a2a/agents/Butler');
    const catalogue = await t.api.get('/a2a/agents', { token: t.adminToken, headers: forwarded });
    expect(catalogue.body[0].card_url).toBe('https://hub.example.com:8443/a2a/agents/Butler/.well-known/agent-card.json');
    await t.stop();

    t = await startTestHub('sqlite');
    const direct = await t.api.get('/.well-known/agent-card.json', { token: t.adminToken, headers: forwarded });
    expect(direct.body.supportedInterfaces[0].url).toBe(`${t.url}/a2a/agents/Butler`);
  });
});
