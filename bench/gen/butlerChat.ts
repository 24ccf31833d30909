// Load generator child: humans talking to Butler. Each conversation (one thread of one member) sends
// a CHAT to Butler, waits for the end of Butler's stream, checks it, and asks again until the run
// ends. Every delta of the fake model carries its write time, so each chunk gives the added latency
// of the deltas in it; the final CHAT must hold every delta exactly once, in order, and equal the
// chunks joined.
import { serve } from '../lib/rpc.js';
import { closeAll, now, openSocket, type Conn } from './common.js';
import type { ButlerRunParams, ButlerRunResult } from './protocol.js';

const BUTLER_ID = 2;
const STAMP = /⟨(\d+\.\d+)⟩/g;

interface Conversation {
  socket: Conn;
  threadId: number;
  chunks: string;
  startedAt: number;
  streamId?: string;
}

let sockets: Conn[] = [];

serve({
  hello: () => ({}),
  async connect(raw: unknown): Promise<{ connected: number }> {
    const { urls } = raw as { urls: string[] };
    sockets = await Promise.all(urls.map((url) => openSocket(url)));
    return { connected: sockets.length };
  },
  async run(raw: unknown): Promise<ButlerRunResult> {
    const p = raw as ButlerRunParams;
    const deltaLatency: number[] = [];
    const answerMs: number[] = [];
    const problems: string[] = [];
    let completed = 0;
    let asked = 0;
    const startedAt = now();
    const deadline = startedAt + p.durationMs;
    const byThread = new Map<number, Conversation>();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    let open = 0;

    const ask = (c: Conversation) => {
      if (now() >= deadline) {
        byThread.delete(c.threadId);
        if (--open === 0) finish();
        return;
      }
      c.chunks = '';
      c.streamId = undefined;
      c.startedAt = now();
      asked++;
      c.socket.send(JSON.stringify({ type: 'CHAT', target_id: BUTLER_ID, conversation_id: c.threadId, payload: `question ${asked}` }));
    };

    for (const [i, socket] of sockets.entries()) {
      socket.onText((text) => {
        const at = now();
        const f = JSON.parse(text) as { type: string; sender_id?: number; conversation_id?: number; payload?: unknown; stream_id?: string };
        if (f.sender_id !== BUTLER_ID || f.conversation_id === undefined) return;
        const c = byThread.get(f.conversation_id);
        if (!c) return;
        if (f.type === 'CHAT_STREAM') {
          c.streamId ??= f.stream_id;
          const chunk = String(f.payload);
          c.chunks += chunk;
          for (const m of chunk.matchAll(STAMP)) deltaLatency.push(at - Number(m[1]));
        } else if (f.type === 'CHAT') {
          const stamps = [...String(f.payload).matchAll(STAMP)].map((m) => Number(m[1]));
          const ordered = stamps.every((s, k) => k === 0 || s >= stamps[k - 1]!);
          if (stamps.length !== p.deltas || !ordered || f.payload !== c.chunks || f.stream_id !== c.streamId) {
            if (problems.length < 5)
              problems.push(
                `thread ${c.threadId}: final CHAT has ${stamps.length}/${p.deltas} deltas${ordered ? '' : ' out of order'}${f.payload === c.chunks ? '' : ', differs from its chunks'}`,
              );
            else problems.push('');
          }
        } else if (f.type === 'CHAT_STREAM_END') {
          completed++;
          answerMs.push(at - c.startedAt);
          ask(c);
        }
      });
      for (const threadId of p.threads[i] ?? []) {
        const c: Conversation = { socket, threadId, chunks: '', startedAt: 0 };
        byThread.set(threadId, c);
        open++;
      }
    }
    for (const c of byThread.values()) ask(c);
    const timeout = setTimeout(finish, p.durationMs + p.drainMs);
    await done;
    clearTimeout(timeout);
    const endedAt = now();
    if (byThread.size > 0) problems.push(`${byThread.size} conversations did not finish their last answer within ${p.drainMs} ms`);
    return { asked, completed, startedAt, endedAt, deltaLatency, answerMs, problems: problems.filter(Boolean), problemCount: problems.length };
  },
  async close() {
    await closeAll(sockets);
    sockets = [];
    return {};
  },
});
