// What a team might pick instead: the same targeted load through a Socket.IO relay (no store).
import { runReference } from '../phases/reference.js';
import { targetedSettings } from '../phases/targeted.js';
import { defineScenario } from '../lib/scenario.js';
import { startSocketioRelay } from '../lib/servers.js';

export default defineScenario({
  key: 'socketio',
  title: 'Reference: Socket.IO relay',
  order: 30,
  settings: (plan) => targetedSettings(plan, [5_000]),
  run: (ctx, s) => runReference(ctx, startSocketioRelay, s, `Reference: the same targeted CHAT through a Socket.IO relay (one room per user, no store)`),
});
