// The ceiling: the same targeted load through bare uWebSockets.js (no actors, no validation, no store).
import { runReference } from '../phases/reference.js';
import { targetedSettings } from '../phases/targeted.js';
import { defineScenario } from '../lib/scenario.js';
import { startRawRelay } from '../lib/servers.js';

export default defineScenario({
  key: 'rawRelay',
  title: 'Reference: raw uWS relay',
  order: 20,
  settings: (plan) => targetedSettings(plan, [5_000]),
  run: (ctx, s) => runReference(ctx, startRawRelay, s, `Reference: the same targeted CHAT through a raw uWS relay (no store)`),
});
