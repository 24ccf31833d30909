// The scale scenario's sizes: enough nodes that a lost node's agents still fit under the others'
// open-file limit, generator processes each under it, and the sizes an operator may set.
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../../bench/lib/plan.js';
import { settingsOf } from '../../../bench/scenarios/scale.js';

const full = parseCommand([], {}).plan;
const quick = parseCommand(['--quick'], {}).plan;

describe('the scale scenario settings', () => {
  it('raises the node count so the survivors of a node loss hold 100,000 agents under a 20,000-file limit', () => {
    const s = settingsOf(full, 20_000, {});
    expect(s.population).toBe(100_000);
    expect(s.nodes).toBe(7);
    expect(Math.ceil(s.population / (s.nodes - 1))).toBeLessThan(20_000 - 500);
    expect(s.nodesWhy).toMatch(/raised from 6/);
    expect(s.generators).toBe(8);
    expect(s.singleAgents).toBe(10_000);
  });

  it('keeps the asked node count where the limit allows, and takes the sizes from the environment', () => {
    expect(settingsOf(full, 1_048_576, {}).nodes).toBe(6);
    const s = settingsOf(quick, 20_000, { BENCH_SCALE_AGENTS: '2000', BENCH_SCALE_NODES: '4', BENCH_SCALE_CONNECT_BUDGET_S: '30' });
    expect([s.population, s.nodes, s.nodesWhy, s.generators, s.connectBudgetMs]).toEqual([2_000, 4, 'as asked', 2, 30_000]);
  });
});
