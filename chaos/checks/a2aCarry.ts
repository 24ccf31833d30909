// kill -9 while a remote A2A agent's back-log is carried: the agent (the tests' @a2a-js/sdk agent on
// loopback, in this process) goes away, members chat to it, it comes back, and while the hub carries
// the chats (one conversation per member, side by side, each answer taking a while, one conversation
// much longer, so chats answered after its chat wait above the carried mark) the hub gets
// SIGKILL and is restarted on the same store and port. Every chat must reach the agent under one A2A
// messageId (a chat in flight at the kill may be delivered again, under the same id), and be answered
// once in the store. One answer is cut mid-stream by the kill (the agent sends its first chunk, then
// works on): every stream a member saw begin before the kill must be ended by a stored answer with
// its stream_id, or the member's dashboard keeps it open forever beside the answer sent after the restart.
import { once } from 'node:events';
import WebSocket from 'ws';
import { pick } from '../../bench/lib/plan.js';
import { int } from '../../bench/lib/stats.js';
import { startA2aPeer } from '../../test/helpers/a2aPeer.js';
import { crew } from '../lib/cast.js';
import { defineCheck } from '../lib/check.js';
import { pollUntil } from '../lib/poll.js';
import { carriedMark, storedPayloads } from '../lib/storeReader.js';
import { atMost, equals, holds, info } from '../lib/verdict.js';

interface Settings {
  senders: number;
  chatsPerSender: number;
  /** How long the agent works on each chat. */
  workMs: number;
  timeoutMs: number;
}

/** A member's socket, open until the kill: the stream ids of the CHAT_STREAM chunks it received. */
async function watchStreams(url: string): Promise<{ streams: Set<string>; socket: WebSocket }> {
  const socket = new WebSocket(url);
  const streams = new Set<string>();
  socket.on('message', (data: Buffer) => {
    const frame = JSON.parse(data.toString()) as { type: string; stream_id?: string };
    if (frame.type === 'CHAT_STREAM' && frame.stream_id) streams.add(frame.stream_id);
  });
  // The hub's SIGKILL drops it: an error then is expected.
  socket.on('error', () => undefined);
  await once(socket, 'open');
  return { streams, socket };
}

/** Sends each text as a CHAT to `targetId` over one socket, one after another; resolves with their stored ids (a human's frame is echoed with its id). */
async function sendChats(url: string, targetId: number, texts: string[]): Promise<number[]> {
  const ws = new WebSocket(url);
  await once(ws, 'open');
  const ids: number[] = [];
  try {
    for (const [n, text] of texts.entries()) {
      const localId = `chat-${n}`;
      const echo = new Promise<number>((resolve, reject) => {
        const onMessage = (data: Buffer) => {
          const frame = JSON.parse(data.toString()) as { type: string; local_id?: string; id?: number; message?: string };
          if (frame.local_id !== localId) return;
          ws.off('message', onMessage);
          if (frame.type === 'CHAT' && frame.id) resolve(frame.id);
          else reject(new Error(`a chat was refused: ${JSON.stringify(frame)}`));
        };
        ws.on('message', onMessage);
      });
      ws.send(JSON.stringify({ type: 'CHAT', target_id: targetId, payload: text, local_id: localId }));
      ids.push(await echo);
    }
  } finally {
    ws.close();
  }
  return ids;
}

const ENV = { A2A_AGENT_CHECK_INTERVAL: '200ms', A2A_ALLOW_PRIVATE_NETWORK: 'true' };

export default defineCheck({
  key: 'a2aCarry',
  title: 'kill -9 while a remote A2A agent’s back-log is carried: each chat delivered under one messageId and answered once, each stream it cut ended',
  order: 15,
  // At most the back-log's bound (100 chats) in all.
  settings: (plan): Settings => ({ senders: pick(plan, 5, 10), chatsPerSender: pick(plan, 6, 10), workMs: pick(plan, 60, 100), timeoutMs: 60_000 }),
  async run(ctx, s) {
    const key = 'a2aCarry';
    const store = await ctx.newStore(key);
    let hub = await ctx.hub(key, store, ENV);
    // The first member's conversation is slow: the others' chats are answered while its chat holds the carried mark back.
    const peer = await startA2aPeer({ name: 'carried', workMs: (text) => (text.includes('.s0.') ? s.workMs * 8 : s.workMs) });
    try {
      const cast = await crew(ctx, hub, key, s.senders, 0);
      const username = `${key}-${Date.now().toString(36)}`;
      const agent = await cast.api.registerRemoteAgent(cast.adminToken, username, peer.cardUrl);
      const online = (want: boolean) => async () => (await cast.api.user(cast.adminToken, agent.id)).online === want;
      const cameOnline = await pollUntil(online(true), 15_000);

      // Away: the chats wait in the store.
      await peer.stop();
      const wentOffline = await pollUntil(online(false), 15_000);
      const tag = `${key}${Date.now().toString(36)}`;
      const texts: string[] = [];
      const chatIds: number[] = [];
      await Promise.all(
        cast.humans.map(async (human, i) => {
          const chats = Array.from({ length: s.chatsPerSender }, (_, n) => `${tag}.s${i}.c${n}.`);
          chatIds.push(...(await sendChats(hub.socketUrl(human.token), agent.id, chats)));
          texts.push(...chats);
        }),
      );
      const total = texts.length;
      const watchers = await Promise.all(cast.humans.map((human) => watchStreams(hub.socketUrl(human.token))));

      // Back: the carry starts; the second member's first answer is cut after its first chunk; a third of the way in, the hub is killed.
      peer.cutWhen = new RegExp(`^${tag}\\.s1\\.c0\\.$`);
      await peer.listen();
      const third = Math.ceil(total / 3);
      const cutSeen = await pollUntil(async () => peer.received.length >= third && watchers[1]!.streams.size > 0, 30_000, 5);
      const receivedBeforeKill = peer.received.length;
      ctx.log(`${key}: ${receivedBeforeKill} of ${total} chats received by the agent; SIGKILL to the hub`);
      await hub.kill('SIGKILL');
      const seenStreams = new Set(watchers.flatMap((w) => [...w.streams]));
      for (const w of watchers) w.socket.terminate();
      hub = await ctx.hub(key, store, ENV, hub.port);
      const last = Math.max(...chatIds);
      const caughtUp = await pollUntil(async () => (await carriedMark(store, agent.id)) >= last, s.timeoutMs, 200);
      ctx.log(`${key}: the mark passed every chat after ${Math.round(caughtUp.ms)} ms`);
      await ctx.stopHub(hub);

      // What the agent received, by chat: how often and under which messageIds.
      const received = new Map<string, string[]>();
      for (const m of peer.received) received.set(m.text, [...(received.get(m.text) ?? []), m.messageId]);
      const answers = new Map<string, number>();
      const answerStreams = new Set<string>();
      for (const row of await storedPayloads(store, agent.id, 'CHAT')) {
        const text = (JSON.parse(row.payload) as string).replace(/^echo: /, '');
        answers.set(text, (answers.get(text) ?? 0) + 1);
        if (row.stream_id) answerStreams.add(row.stream_id);
      }
      const unended = [...seenStreams].filter((id) => !answerStreams.has(id));
      const never = texts.filter((t) => !received.has(t)).length;
      const manyIds = texts.filter((t) => new Set(received.get(t)).size > 1);
      const again = texts.filter((t) => (received.get(t)?.length ?? 0) > 1).length;
      const unanswered = texts.filter((t) => !answers.has(t)).length;
      const twice = texts.filter((t) => (answers.get(t) ?? 0) > 1);
      return {
        measured: `${s.senders} members each send ${s.chatsPerSender} CHAT to a remote A2A agent while it is away; it comes back and answers each after ${s.workMs} ms (the first member's after ${s.workMs * 8} ms; the second member's first answer stops after its first chunk), the hub carrying one chat per member at a time; once the agent has received a third of them and the cut stream's chunk has reached its member, the hub gets SIGKILL and is restarted on the same store and port. Then what the agent received (by A2A messageId) and the answers stored (with their stream ids) are compared with the chats sent and the streams the members saw begin.`,
        verdicts: [
          holds(
            'the agent online, then offline, before the chats',
            cameOnline.done && wentOffline.done,
            `${cameOnline.done} / ${wentOffline.done}`,
            'true / true',
          ),
          info('chats sent', int(total)),
          holds(
            'the kill came during the carry, with an answer cut mid-stream',
            cutSeen.done && receivedBeforeKill > 0 && receivedBeforeKill < total,
            `${receivedBeforeKill} of ${total} received before it; the cut stream seen: ${cutSeen.done}`,
            'some, not all; true',
          ),
          holds('the carried mark passed every chat after the restart', caughtUp.done, `${caughtUp.done} after ${Math.round(caughtUp.ms)} ms`, 'true'),
          equals('chats the agent never received', never, 0),
          equals('chats the agent received under more than one messageId', manyIds.length, 0),
          atMost('chats delivered to the agent more than once (only those in flight at the kill: one per conversation at most)', again, s.senders),
          equals('chats with no answer stored', unanswered, 0),
          equals('chats answered more than once in the store', twice.length, 0),
          info('streams the members saw begin before the kill', int(seenStreams.size)),
          equals('streams seen before the kill that no stored answer ends (open forever in a dashboard)', unended.length, 0),
        ],
        notes: [
          ...(manyIds.length > 0 ? [`Received under several messageIds, e.g.: ${manyIds.slice(0, 3).join(', ')}.`] : []),
          ...(twice.length > 0 ? [`Answered more than once, e.g.: ${twice.slice(0, 3).join(', ')}.`] : []),
          ...(unended.length > 0 ? [`Streams never ended, e.g.: ${unended.slice(0, 3).join(', ')}.`] : []),
        ],
      };
    } finally {
      await peer.stop();
    }
  },
});
