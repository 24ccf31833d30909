// What a node spends keeping its view of who is ONLINE, old and new in one run: every node reads
// every agent's every PRESENCE frame (N nodes × the population at each connect storm). "parse":
// JSON.parse of each frame, as before; "scan": a search for the unescaped flag (online.ts).
//   npx tsx bench/micro/presenceNote.ts   (FRAMES=100000 ROUNDS=3)
import { createOnlineView } from '../../src/cluster/presence/online.js';
import { presenceFrame } from '../../src/protocol/frames.js';

const FRAMES = Number(process.env.FRAMES ?? 100_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const frames = Array.from({ length: FRAMES }, (_, i) => ({
  type: 'PRESENCE',
  senderId: i,
  text: presenceFrame(
    {
      user_id: i,
      username: `agent-${i}`,
      status: 'ONLINE',
      online: i % 2 === 0,
      last_seen_at: new Date().toISOString(),
      last_report: 'websocket_connected',
    } as never,
    new Date().toISOString(),
  ),
}));

function parseNote(set: Set<number>) {
  for (const d of frames) {
    const frame = JSON.parse(d.text) as { payload?: { online?: boolean } };
    if (frame.payload?.online) set.add(d.senderId);
    else set.delete(d.senderId);
  }
  return set.size;
}

for (let r = 0; r < ROUNDS; r++) {
  let t = performance.now();
  const old = parseNote(new Set());
  const parseMs = performance.now() - t;
  const view = createOnlineView();
  t = performance.now();
  view.note(frames);
  const scanMs = performance.now() - t;
  console.log(
    `${FRAMES} PRESENCE frames: parse ${parseMs.toFixed(1)} ms (${((parseMs * 1000) / FRAMES).toFixed(2)} µs each), scan ${scanMs.toFixed(1)} ms (${((scanMs * 1000) / FRAMES).toFixed(2)} µs each); online ${old} / ${view.count}`,
  );
}
