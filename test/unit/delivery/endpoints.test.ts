// What the router hands an endpoint: the serialised text (and stored id) for every frame, and the
// message frame object beside it, which endpoints inside the hub read instead of parsing the text.
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, type Actor } from 'xstate';
import { routerMachine } from '../../../src/actors/router.js';
import { audienceOf } from '../../../src/delivery/audience.js';
import type { Delivery, Endpoint, Principal } from '../../../src/delivery/types.js';
import { toMessageFrame } from '../../../src/protocol/frames.js';
import { users } from '../../helpers/deliveryFakes.js';
import { RecordingEndpoint } from '../../helpers/recordingEndpoint.js';

const { alice, weather, butler } = users;
const admin: Principal = { id: 3, username: 'root', role: 'ADMIN' };

function chat(sender: Principal, target: Principal, id: number, extra: Partial<Delivery> = {}): Delivery {
  const source = {
    id,
    type: 'CHAT',
    sender_id: sender.id,
    sender_name: sender.username,
    sender_role: sender.role,
    target_id: target.id,
    target_role: target.role,
    payload: 'x',
    local_id: null,
    conversation_id: null,
    stream_id: null,
    created_at: 't',
  };
  const frame = toMessageFrame(source);
  const audience = audienceOf(source);
  return {
    type: 'CHAT',
    text: JSON.stringify(frame),
    frame,
    audience,
    senderId: sender.id,
    id,
    monitorText: audience.monitor ? '{"type":"BUTLER_AGENT_MESSAGE"}' : undefined,
    ...extra,
  };
}

describe('router → endpoints', () => {
  let router: Actor<typeof routerMachine>;
  const start = (...endpoints: Endpoint[]) => {
    router = createActor(routerMachine, { input: { presence: { online: () => undefined, offline: () => undefined } } }).start();
    for (const endpoint of endpoints) router.send({ type: 'BIND', endpoint });
  };
  afterEach(() => router.stop());

  it('passes the frame object with its text; monitor copies and PRESENCE have none', () => {
    const inHub = new RecordingEndpoint(butler, true);
    const socket = new RecordingEndpoint(admin);
    start(inHub, socket);
    const d = chat(weather, butler, 5);
    const presence: Delivery = {
      type: 'PRESENCE',
      text: '{"type":"PRESENCE"}',
      audience: { broadcast: 'humans', echo: false, exceptSender: false, monitor: false },
      senderId: weather.id,
    };
    router.send({ type: 'DELIVER', deliveries: [d, presence] });
    expect(inHub.received).toEqual([{ text: d.text, id: 5, frame: d.frame }]);
    expect(inHub.received[0]!.frame).toBe(d.frame);
    expect(socket.received).toEqual([
      { text: '{"type":"BUTLER_AGENT_MESSAGE"}', id: 5, frame: undefined },
      { text: '{"type":"PRESENCE"}', id: undefined, frame: undefined },
    ]);
  });

  it('keeps records from endpoints inside the hub', () => {
    const inHub = new RecordingEndpoint(butler, true);
    const socket = new RecordingEndpoint(butler);
    start(inHub, socket);
    router.send({ type: 'DELIVER', deliveries: [chat(alice, butler, 6, { socketsOnly: true })] });
    expect(inHub.received).toEqual([]);
    expect(socket.received.map((g) => g.id)).toEqual([6]);
  });
});

describe('presence and endpoints inside the hub', () => {
  it("an agent's endpoint inside the hub (its A2A answers) neither makes nor ends its presence; its socket does", () => {
    const seen: string[] = [];
    const router = createActor(routerMachine, {
      input: { presence: { online: (u) => void seen.push(`online ${u.id}`), offline: (u) => void seen.push(`offline ${u.id}`) } },
    }).start();
    const answers = new RecordingEndpoint(weather, true);
    const socket = new RecordingEndpoint(weather);
    router.send({ type: 'BIND', endpoint: answers });
    expect(seen).toEqual([]);
    router.send({ type: 'BIND', endpoint: socket });
    expect(seen).toEqual([`online ${weather.id}`]);
    router.send({ type: 'UNBIND', endpoint: socket });
    expect(seen).toEqual([`online ${weather.id}`, `offline ${weather.id}`]);
    router.send({ type: 'UNBIND', endpoint: answers });
    expect(seen).toEqual([`online ${weather.id}`, `offline ${weather.id}`]);
    router.stop();
  });
});
