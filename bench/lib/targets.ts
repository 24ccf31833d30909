// The hub's performance budget on a 2-core machine, checked against a run's figures, and the ratios
// of the hub to the references measured in the same run (which hold on a noisy machine).
import type { Figure } from './scenario.js';

export interface Target {
  figure: string;
  measured: Figure;
  target: string;
  met: boolean;
}

type Figures = Record<string, Record<string, Figure>>;

const get = (f: Figures, scenario: string, key: string): Figure => f[scenario]?.[key] ?? null;

const ratio = (a: Figure, b: Figure): Figure => (a === null || b === null || b === 0 ? null : a / b);

export function ratiosOf(f: Figures): Record<string, Figure> {
  const out: Record<string, Figure> = {};
  const hub = get(f, 'targeted', 'msgPerSec');
  const raw = ratio(hub, get(f, 'rawRelay', 'msgPerSec'));
  const sio = ratio(hub, get(f, 'socketio', 'msgPerSec'));
  if (raw !== null) out['hubToRawRelay'] = raw;
  if (sio !== null) out['hubToSocketio'] = sio;
  return out;
}

/** Each target whose figure the run measured; a scenario left out (--only) leaves its targets out. */
export function targetsOf(f: Figures, ratios: Record<string, Figure>): Target[] {
  const targets: Target[] = [];
  const atLeast = (figure: string, measured: Figure, min: number, shown: string) => {
    if (measured !== null) targets.push({ figure, measured, target: `≥ ${shown}`, met: measured >= min });
  };
  const atMost = (figure: string, measured: Figure, max: number, shown: string) => {
    if (measured !== null) targets.push({ figure, measured, target: `≤ ${shown}`, met: measured <= max });
  };
  atLeast('targeted CHAT with persistence, msg/s sustained', get(f, 'targeted', 'msgPerSec'), 15_000, '15,000');
  atLeast('hub / raw uWS relay, msg/s', ratios['hubToRawRelay'] ?? null, 0.3, '0.3');
  atLeast('hub / Socket.IO relay, msg/s', ratios['hubToSocketio'] ?? null, 1, '1');
  atMost('targeted CHAT p99 ms at 5,000 msg/s', get(f, 'targeted', 'p99MsAt5k'), 50, '50 ms');
  const sockets = get(f, 'idle', 'sockets');
  if (sockets !== null && sockets >= 10_000)
    atMost(`KB RSS per idle agent socket (${sockets.toLocaleString('en-US')})`, get(f, 'idle', 'rssPerSocketKB'), 16, '16 KB');
  atLeast('dashboard fan-out, deliveries/s', get(f, 'fanout', 'deliveriesPerSec'), 100_000, '100,000');
  return targets;
}
