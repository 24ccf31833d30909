// Finds the scenarios: every module in bench/scenarios/ whose default export is a scenario. Adding
// one is adding a file there.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from './plan.js';
import type { Scenario } from './scenario.js';

/** What the registry needs of a module's default export (a bench scenario, a chaos check). */
interface Registered {
  key: string;
  order: number;
  run: (...args: never[]) => unknown;
  settings: (...args: never[]) => unknown;
}

const isRegistered = (v: unknown): v is Registered =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Registered).key === 'string' &&
  typeof (v as Registered).run === 'function' &&
  typeof (v as Registered).settings === 'function';

export async function loadScenarios<T extends Registered = Scenario>(dir: string, define = 'defineScenario'): Promise<T[]> {
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  const scenarios: T[] = [];
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default?: unknown };
    if (!isRegistered(mod.default)) throw new Error(`${join(dir, file)} must export default ${define}({...})`);
    scenarios.push(mod.default as T);
  }
  const keys = new Set<string>();
  for (const s of scenarios) {
    if (keys.has(s.key)) throw new Error(`two scenarios share the key ${s.key}`);
    keys.add(s.key);
  }
  return scenarios.sort((a, b) => a.order - b.order);
}

/** The scenarios `only` names (all when undefined), in run order; an unknown name is an error. */
export function select<T extends Registered>(all: T[], only: string[] | undefined): T[] {
  if (!only) return all;
  const unknown = only.filter((k) => !all.some((s) => s.key === k));
  if (unknown.length > 0) throw new UsageError(`unknown scenario ${unknown.join(', ')}; there are: ${all.map((s) => s.key).join(', ')}`);
  return all.filter((s) => only.includes(s.key));
}
