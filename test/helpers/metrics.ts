// Reads the hub's /metrics text into samples, so tests can compare scrapes before and after traffic.
import type { TestHub } from './hub.js';

/** `name{a="x",b="y"}` (labels sorted) → value. */
export type Samples = Map<string, number>;

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function sampleKey(name: string, labels: Record<string, string | number> = {}): string {
  const parts = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort();
  return parts.length === 0 ? name : `${name}{${parts.join(',')}}`;
}

export function parseMetrics(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of match[2]?.matchAll(LABEL) ?? []) labels[k!] = v!;
    samples.set(sampleKey(match[1]!, labels), Number(match[3]));
  }
  return samples;
}

export async function scrape(t: Pick<TestHub, 'url'>, token?: string): Promise<Samples> {
  const res = await fetch(`${t.url}/metrics`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${await res.text()}`);
  return parseMetrics(await res.text());
}

/** A sample's value (0 when the series does not exist yet). */
export function valueOf(samples: Samples, name: string, labels?: Record<string, string | number>): number {
  return samples.get(sampleKey(name, labels)) ?? 0;
}

/** How much each named series moved between two scrapes. */
export function delta(before: Samples, after: Samples, name: string, labels?: Record<string, string | number>): number {
  return valueOf(after, name, labels) - valueOf(before, name, labels);
}
