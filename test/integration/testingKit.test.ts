// The test kit (src/testing, shipped as @agent-hub/testing) against its own hub: clients and their
// expectations, actors and waitFor, quiesce, the trace a failing expectation prints, the fake
// platform's connector, time moved by the clock, a restart the clients ride through, and the options
// for a hub on real time, without the fake platform, on a SQLite file of the test's.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestHub, textReply, type TestHub } from '../../src/testing/index.js';

describe('@agent-hub/testing', () => {
  let hub: TestHub | undefined;
  afterEach(async () => {
    await hub?.stop();
    hub = undefined;
  });

  it('connects an agent and a human who chat; expect skips other frames and consumes in order', async () => {
    hub = await startTestHub();
    const agent = await hub.agent('weather');
    const alice = await hub.human('alice');
    agent.onChat((frame) => agent.reply(frame, `sunny, ${frame.payload}`));

    await alice.send({ type: 'CHAT', target_id: agent.id, payload: 'Oslo?' });
    const heard = await agent.expect({ type: 'CHAT', sender_id: alice.id, payload: 'Oslo?' });
    expect(heard.target_id).toBe(agent.id);
    await alice.expect({ type: 'CHAT', sender_id: agent.id, payload: /^sunny/ });
    // The answer was consumed: a second expect for it waits for a new one.
    await expect(alice.expect({ type: 'CHAT', sender_id: agent.id }, { within: 100 })).rejects.toThrow(
      /alice received no frame matching \{"type":"CHAT","sender_id":\d+\} within 100 ms\nframes alice received after the last expect \(0\):\n {2}\(none\)/,
    );
    await agent.expectNothing({ type: 'CHAT', sender_id: alice.id }, { for: 50 });
    await alice.send({ type: 'CHAT', target_id: agent.id, payload: 'again' });
    await expect(agent.expectNothing((f) => f.type === 'CHAT' && f.payload === 'again', { for: '2s' })).rejects.toThrow(
      /weather received frame #\d+ matching the predicate .*, expected none within 2000 ms/,
    );
  });

  it('lists and waits on actors: the connections, Butler and its conversation after a scripted answer', async () => {
    hub = await startTestHub();
    hub.model.enqueue(textReply('Three agents are online.', 3));
    const alice = await hub.human('alice', { role: 'ADMIN' });
    const connections = hub.actors.list({ kind: 'connection' });
    expect(connections).toEqual([expect.objectContaining({ kind: 'connection', state: expect.stringMatching(/^open/) })]);
    expect(connections[0]!.context).toMatchObject({ user: { id: alice.id, username: 'alice', role: 'ADMIN' } });
    expect(hub.actors.get('butler')).toMatchObject({ kind: 'butler', state: 'running' });
    expect(hub.actors.get('nobody')).toBeUndefined();

    await alice.send({ type: 'CHAT', target_id: hub.butler.id, payload: 'who is online?' });
    await alice.expect({ type: 'CHAT', sender_id: hub.butler.id, payload: 'Three agents are online.' });
    const [conversation] = hub.actors.list({ kind: 'conversation' });
    expect(conversation?.id).toMatch(new RegExp(`^conversation-${alice.id}-\\d+$`));
    await hub.actors.waitFor(conversation!.id, { state: 'idle', context: { answered: 1 } });
    await hub.actors.waitFor('butler', (b) => b.context['turns'] === 1);
    expect(hub.model.requests.at(-1)?.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('who is online?') });

    await expect(hub.actors.waitFor('butler', { state: 'stopped' }, { timeout: 100 })).rejects.toThrow(
      /actor butler did not match \{"state":"stopped"\} within 100 ms; its last snapshot: \{"id":"butler","kind":"butler","state":"running"/,
    );
    await expect(hub.actors.waitFor('connection-999', { state: 'open' }, { timeout: 50 })).rejects.toThrow(
      /no live actor has the id connection-999\nlive actors: .*butler/,
    );
  });

  it('quiesce resolves once what was queued is stored and delivered', async () => {
    hub = await startTestHub();
    const agent = await hub.agent('logger');
    const admin = await hub.human('ops', { role: 'ADMIN' });
    const sender = { id: agent.id, username: agent.username, role: 'AGENT' as const };
    // Queued in the hub's pipeline without waiting: only quiesce says when they are through.
    const settled: boolean[] = [];
    for (let i = 0; i < 20; i++)
      void hub.hub.pipeline.post(sender, { type: 'SYSTEM_LOG', payload: { level: 'INFO', content: `line ${i}` } }).then(() => settled.push(true));
    expect(hub.hub.pipeline.depth).toBeGreaterThan(0);
    await hub.quiesce();
    expect(settled).toHaveLength(20);
    expect(hub.hub.pipeline.depth).toBe(0);
    expect(hub.hub.pipeline.queuedBytes).toBe(0);
    const stored = await hub.admin.messages.list({ limit: 100 });
    expect(stored.items.filter((m) => m.sender_id === agent.id && m.type === 'SYSTEM_LOG')).toHaveLength(20);
    // Delivered too: the last line reaches the admin's socket.
    await admin.expect({ type: 'SYSTEM_LOG', sender_id: agent.id, payload: { content: 'line 19' } });
  });

  it('prints the actor trace when an expectation fails, and records nothing unless asked', async () => {
    hub = await startTestHub({ trace: true });
    const alice = await hub.human('alice');
    await alice.send({ type: 'CHAT', target_id: hub.butler.id, payload: 'hello Butler' });
    await alice.expect({ type: 'CHAT', sender_id: hub.butler.id, payload: 'You said: hello Butler' });
    await hub.quiesce();

    const failure = await alice.expect({ type: 'AUTH_REQUEST' }, { within: 50 }).catch((err: unknown) => err as Error);
    expect(failure).toBeInstanceOf(Error);
    const text = (failure as Error).message;
    expect(text).toContain('alice received no frame matching {"type":"AUTH_REQUEST"} within 50 ms');
    expect(text).toMatch(/^actor trace \(\d+ entries\):$/m);
    expect(text).toMatch(/^ {2}\+ *\d+ms conversation-\d+-\d+: \(start\) → idle on xstate\.init$/m);
    expect(text).toMatch(/^ {2}\+ *\d+ms conversation-\d+-\d+: idle → answering on /m);
    expect(text).toMatch(/^ {2}\+ *\d+ms butler: received \w+/m);
    expect(text).toMatch(/^actors now:\n(?: {2}.+\n)* {2}butler \(butler\): running/m);

    const own = hub.trace({ actor: /^connection-/ });
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((e) => e.actor.startsWith('connection-'))).toBe(true);
    expect(own.map((e) => e.seq)).toEqual([...own.map((e) => e.seq)].sort((a, b) => a - b));
    await hub.stop();

    hub = await startTestHub();
    expect(() => hub!.trace()).toThrow('the hub records no trace: start it with startTestHub({ trace: true })');
    expect(hub.explain()).toBe('');
    const bob = await hub.human('bob');
    const quiet = await bob.expect({ type: 'AUTH_REQUEST' }, { within: 20 }).catch((err: unknown) => err as Error);
    expect((quiet as Error).message).not.toContain('actor trace');
  });

  it('connects the connector to the fake platform and answers a platform user through Butler', async () => {
    hub = await startTestHub();
    const { connectorId } = await hub.platform.connect();
    expect(hub.actors.get('connector')).toMatchObject({ state: 'enabled', context: { connector_id: connectorId, connection: 'connected' } });
    await hub.platform.message({ chatId: 'oc_dm_kim', openId: 'ou_kim', text: 'status?' });
    const [sent] = await hub.platform.waitForSends(1);
    expect(sent).toMatchObject({ chat_id: 'oc_dm_kim', text: 'You said: status?' });
  });

  it('expires an approval when the clock moves past BUTLER_AUTH_TIMEOUT', async () => {
    hub = await startTestHub({ env: { BUTLER_AUTH_TIMEOUT: '10m' } });
    const agent = await hub.agent('deployer');
    const alice = await hub.human('alice');
    hub.model.enqueue(
      { steps: [{ toolCall: { name: 'command_agent', arguments: JSON.stringify({ target_agent_id: agent.id, command: 'deploy', reasoning: 'asked to' }) } }] },
      textReply('Waiting for your approval.'),
    );
    await alice.send({ type: 'CHAT', target_id: hub.butler.id, payload: 'deploy please' });
    const request = await alice.expect({ type: 'AUTH_REQUEST' });
    const actionId = (request.payload as { action_id: string }).action_id;
    await hub.clock.advance('9m');
    await alice.expectNothing({ type: 'AUTH_STATUS_UPDATE' }, { for: 50 });
    await hub.clock.advance('1m');
    await alice.expect({ type: 'AUTH_STATUS_UPDATE', payload: { action_id: actionId, status: 'EXPIRED' } });
    await agent.expectNothing({ type: 'CHAT', payload: /deploy/ }, { for: 50 });
  });

  it('restarts on the same database, address, secret and clock: open clients are back when it resolves and chat on', async () => {
    const lines: Array<Record<string, unknown>> = [];
    hub = await startTestHub({ onLog: (line) => lines.push(line) });
    const agent = await hub.agent('echo');
    const alice = await hub.human('alice');
    agent.onChat((frame) => agent.reply(frame, `echo: ${frame.payload}`));
    await hub.clock.advance('5m');
    const before = { url: hub.url, hub: hub.hub, now: hub.clock.now(), lines: lines.length };

    // Who holds a live socket on the hub: restart resolves with the kit's open clients back (bob closed his).
    const bob = await hub.human('bob');
    await bob.close();
    const liveUsers = () =>
      hub!.actors
        .list({ kind: 'connection' })
        .filter((c) => c.state.startsWith('open'))
        .map((c) => (c.context['user'] as { id: number }).id)
        .sort();
    await hub.restart();
    expect(liveUsers()).toEqual([agent.id, alice.id].sort());
    expect(hub.hub).not.toBe(before.hub);
    expect(before.hub.store.db).not.toBe(hub.hub.store.db);
    expect(hub.url).toBe(before.url);
    expect(hub.clock.now()).toBeGreaterThanOrEqual(before.now);
    // The new hub logged its start through onLog and hub.logs alike.
    expect(lines.length).toBeGreaterThan(before.lines);
    expect(hub.logs).toEqual(lines);
    await alice.send({ type: 'CHAT', target_id: agent.id, payload: 'still there?' });
    await alice.expect({ type: 'CHAT', sender_id: agent.id, payload: 'echo: still there?' }, { within: '10s' });
    // Users and their tokens outlived the restart: the admin's REST client still works on the new hub.
    expect((await hub.admin.agents.butler()).id).toBe(hub.butler.id);

    // A restart with other settings replaces the ones the hub started with: approvals expire after 3 minutes.
    await hub.restart({ env: { BUTLER_AUTH_TIMEOUT: '3m' } });
    expect(liveUsers()).toEqual([agent.id, alice.id].sort());
    hub.model.enqueue(
      { steps: [{ toolCall: { name: 'command_agent', arguments: JSON.stringify({ target_agent_id: agent.id, command: 'deploy', reasoning: 'asked to' }) } }] },
      textReply('Waiting for your approval.'),
    );
    await alice.send({ type: 'CHAT', target_id: hub.butler.id, payload: 'deploy please' });
    const request = await alice.expect({ type: 'AUTH_REQUEST' }, { within: '10s' });
    await hub.clock.advance('3m');
    await alice.expect({ type: 'AUTH_STATUS_UPDATE', payload: { action_id: (request.payload as { action_id: string }).action_id, status: 'EXPIRED' } });
  });

  it("runs on real time with clock: 'real', leaves the platform settings alone with platform: false, keeps databasePath", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kit-options-'));
    try {
      const path = join(dir, 'mine.db');
      hub = await startTestHub({ clock: 'real', platform: false, model: false, databasePath: path });
      expect(Math.abs(hub.clock.now() - Date.now())).toBeLessThan(1000);
      await expect(hub.clock.advance('1m')).rejects.toThrow(/clock: 'real'/);
      expect(() => hub!.platform).toThrow(/platform: false/);
      // Butler in safe mode answers without the model.
      const alice = await hub.human('alice');
      await alice.send({ type: 'CHAT', target_id: hub.butler.id, payload: 'hello' });
      await alice.expect({ type: 'CHAT', sender_id: hub.butler.id });
      expect(hub.model.requests).toEqual([]);
      await hub.stop();
      hub = undefined;
      expect(existsSync(path)).toBe(true);
      await expect(startTestHub({ databasePath: path, databaseUrl: 'postgres://x/y' })).rejects.toThrow(/not both/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
