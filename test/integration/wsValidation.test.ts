// Bad frames over a real socket: each gets an ERROR naming the problem, nothing is stored, the
// connection stays open; repeated abuse and rate-limit excess close it with their own codes.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { wsClientPool } from '../helpers/wsClient.js';

describeEachDriver('websocket frame validation', (driver) => {
  let t: TestHub;
  const clients = wsClientPool(() => t.url);
  const connect = clients.connect;
  const storedCount = async () =>
    Number(
      (
        await t.hub.store.db
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    t = await startTestHub(driver, { WS_MAX_FRAME_BYTES: '4096', WS_RATE_LIMIT: '50', WS_RATE_BURST: '50' });
  });
  afterEach(() => clients.closeAll());
  afterAll(() => t.stop());

  it('answers every kind of bad frame with an ERROR, stores nothing and keeps the connection', async () => {
    const agent = await t.createAgent();
    const a = await connect(agent.api_token);
    const before = await storedCount();
    const cases: Array<[string | Buffer, string, string | RegExp, boolean?]> = [
      ['{not json', 'invalid_json', 'frame is not valid JSON text'],
      ['[1,2]', 'invalid_frame', 'frame must be a JSON object'],
      ['"CHAT"', 'invalid_frame', 'frame must be a JSON object'],
      [JSON.stringify({ payload: 'x' }), 'invalid_frame', 'type is required'],
      [JSON.stringify({ type: 'SHOUT', payload: 'x', local_id: 'l-shout' }), 'unknown_type', /^unknown frame type "SHOUT"; expected one of CHAT, /],
      [JSON.stringify({ type: 'ACK', payload: 'x' }), 'unknown_type', /^unknown frame type "ACK"/],
      [
        JSON.stringify({ type: 'SYSTEM_LOG', payload: { level: 'LOUD', content: 'x' } }),
        'invalid_payload',
        'payload.level must be one of INFO, WARNING, ERROR, SUCCESS',
      ],
      [JSON.stringify({ type: 'SYSTEM_LOG', payload: 'text' }), 'invalid_payload', 'payload must be a JSON object'],
      [JSON.stringify({ type: 'CHAT', payload: { text: 'x' } }), 'invalid_payload', 'payload must be a string'],
      [JSON.stringify({ type: 'CHAT', payload: 'x', target_id: 'two' }), 'invalid_payload', 'target_id must be a number'],
      [JSON.stringify({ type: 'CHAT_STREAM', payload: 'x' }), 'invalid_payload', 'stream_id is required'],
      [
        JSON.stringify({ type: 'WEATHER_UPDATE', payload: { location: 'Oslo', temp: 3 } }),
        'invalid_payload',
        'payload.temperature_c is required; unknown field: payload.temp',
      ],
      [
        JSON.stringify({ type: 'SECURITY_ALERT', payload: { severity: 'urgent', content: 'x' } }),
        'invalid_payload',
        'payload.severity must be one of low, medium, high, critical',
      ],
      [JSON.stringify({ type: 'CODE_REVIEW', payload: { verdict: 'approve' } }), 'invalid_payload', 'payload.content is required'],
      [JSON.stringify({ type: 'CHAT', payload: 'x', local_id: 'a\u0001b' }), 'invalid_payload', 'local_id must not contain control characters'],
      [JSON.stringify({ type: 'CHAT', payload: 'x'.repeat(5000) }), 'frame_too_large', /^frame is \d+ bytes; the limit is 4096$/],
      [Buffer.from('{"type":"CHAT","payload":"x"}'), 'invalid_frame', 'binary frames are not accepted; send JSON text', true],
      [JSON.stringify({ type: 'CHAT', payload: 'x', target_id: 999999, local_id: 'to-nobody' }), 'not_found', 'target user 999999 not found'],
      [JSON.stringify({ type: 'AUTH_RESPONSE', payload: { action_id: 'a', approved: true } }), 'forbidden', 'only human users answer authorization requests'],
    ];
    for (const [data, code, message, binary] of cases) {
      a.sendRaw(data, { binary: binary ?? false });
      const error = await a.next('ERROR');
      expect(error.payload.code, String(data).slice(0, 60)).toBe(code);
      if (typeof message === 'string') expect(error.payload.message).toBe(message);
      else expect(error.payload.message).toMatch(message);
    }
    expect(a.received.filter((f) => f.local_id === 'l-shout' || f.local_id === 'to-nobody').map((f) => f.type)).toEqual(['ERROR', 'ERROR']);
    expect(await storedCount()).toBe(before);
    // Still open and working.
    a.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'still here' }, local_id: 'ok' });
    expect(await a.next('ACK')).toMatchObject({ local_id: 'ok' });
  });

  it('answers a human AUTH_RESPONSE for an unknown action with not_found', async () => {
    const member = await t.createMember();
    const m = await connect(member.token);
    m.send({ type: 'AUTH_RESPONSE', payload: { action_id: 'no-such-action', approved: true }, local_id: 'r1' });
    expect(await m.next('ERROR')).toEqual({ type: 'ERROR', local_id: 'r1', payload: { code: 'not_found', message: 'authorization request not found' } });
  });

  it('closes a client that keeps sending bad frames with 4010', async () => {
    const agent = await t.createAgent();
    const a = await connect(agent.api_token);
    for (let i = 0; i < 40; i++) a.sendRaw('nonsense');
    expect(await a.closed()).toEqual({ code: 4010, reason: 'too many invalid frames' });
    expect(a.received.filter((f) => f.type === 'ERROR').length).toBeGreaterThanOrEqual(20);
  });

  it('refuses frames past the rate limit with ERROR, then closes with 4008', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const since = await t.lastMessageId();
    const a = await connect(agent.api_token);
    for (let i = 0; i < 200; i++) a.send({ type: 'CHAT', payload: `n${i}`, target_id: member.id, local_id: `r${i}` });
    expect(await a.closed()).toEqual({ code: 4008, reason: 'rate limit exceeded' });
    const limited = a.received.filter((f) => f.type === 'ERROR');
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]!.payload).toEqual({ code: 'rate_limited', message: 'more than 50 frames per second; slow down' });
    // What was accepted before the limit was stored and delivered; nothing refused was.
    await t.hub.pipeline.drain();
    const acked = a.received.filter((f) => f.type === 'ACK').map((f) => f.local_id);
    const rows = await t.hub.store.db.selectFrom('messages').select('local_id').where('sender_id', '=', agent.id).orderBy('id').execute();
    expect(rows.length).toBeGreaterThanOrEqual(50);
    expect(rows.length).toBeLessThan(200);
    expect(acked.every((id) => rows.some((r) => r.local_id === id))).toBe(true);
    // The member, connecting afterwards, gets exactly the accepted ones.
    const m = await connect(member.token, { since });
    await m.nextWhere((f) => f.local_id === rows.at(-1)!.local_id, 'the last accepted chat');
    expect(m.received.filter((f) => f.type === 'CHAT').map((f) => f.local_id)).toEqual(rows.map((r) => r.local_id));
  });
});
