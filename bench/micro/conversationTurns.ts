// Butler's conversation actor on its own: CPU per turn for a thousand conversations, each sent twenty
// turns at once (queued, then answered one after another), with an answer port that returns at
// once. Measures what the actor costs per answer, apart from the answer itself.
//   npx tsx bench/micro/conversationTurns.ts [conversations=1000] [turns=20]
import { createActor } from 'xstate';
import { conversationMachine, type ConversationPorts } from '../../src/butler/conversation.js';
import { IdleTimers } from '../../src/butler/idleTimers.js';
import type { Asker } from '../../src/butler/tools.js';
import type { Turn } from '../../src/butler/turns.js';

const conversations = Number(process.argv[2] ?? 1000);
const turns = Number(process.argv[3] ?? 20);
const asker: Asker = { principal: { id: 3, username: 'mia', role: 'MEMBER' }, conversationId: 7 };
const turn: Turn = { kind: 'message', message: { id: 1, text: 'q', sender: asker.principal, conversationId: 7 } };

async function round(): Promise<number> {
  let answered = 0;
  let allAnswered!: () => void;
  const done = new Promise<void>((resolve) => (allAnswered = resolve));
  const ports: ConversationPorts = {
    answer: async () => {
      if (++answered === conversations * turns) allAnswered();
    },
    refuse: () => undefined,
    failed: () => undefined,
  };
  const idle = new IdleTimers();
  const actors = Array.from({ length: conversations }, (_, i) =>
    createActor(conversationMachine, { input: { key: String(i), asker, ports, maxQueued: turns, idleMs: 60_000, idle } }).start(),
  );
  const before = process.cpuUsage();
  for (let t = 0; t < turns; t++) for (const actor of actors) actor.send({ type: 'TURN', turn });
  await done;
  const used = process.cpuUsage(before);
  for (const actor of actors) actor.send({ type: 'END' });
  return (used.user + used.system) / (conversations * turns);
}

// The first rounds compile and warm up; the last is the figure.
for (let i = 1; i <= 4; i++) console.log(`round ${i}: ${(await round()).toFixed(1)} µs of CPU per turn`);
