// Finds the scenarios: every module in bench/scenarios/ whose default export is a scenario. Adding
// one is adding a file there.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from './plan.js';
import type { Scenario } from './scenario.js';

const isScenario = (v: unknown): v is Scenario =>
  typeof v === 'object' && v !== null && typeof (v as Scenario).key === 'string' && typeof (v as Scenario).run === 'function' && typeof (v as Scenario).settings === 'function';

export async function loadScenarios(dir: string): Promise<Scenario[]> {
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const scenarios: Scenario[] = [];
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default?: unknown };
    if (!isScenario(mod.default)) throw new Error(`bench/scenarios/${file} must export a scenario as default: export default defineScenario({...})`);
    scenarios.push(mod.default);
  }
  const keys = new Set<string>();
  for (const s of scenarios) {
    if (keys.has(s.key)) throw new Error(`two scenarios share the key ${s.key}`);
    keys.add(s.key);
  }
  return scenarios.sort((a, b) => a.order - b.order);
}

/** The scenarios `only` names (all when undefined), in run order; an unknown name is an error. */
export function select(all: Scenario[], only: string[] | undefined): Scenario[] {
  if (!only) return all;
  const unknown = only.filter((k) => !all.some((s) => s.key === k));
  if (unknown.length > 0) throw new UsageError(`unknown scenario ${unknown.join(', ')}; there are: ${all.map((s) => s.key).join(', ')}`);
  return all.filter((s) => only.includes(s.key));
}
