// The overview's wording (the order, counts and search of agents are the hub's now:
// test/integration/roster.test.ts).
import { describe, expect, it } from 'vitest';
import { reportCount } from '../../../web/src/pages/overview/agents.js';

describe('agents on the overview', () => {
  it("says what an agent's per-hour line counts: its logs and reports", () => {
    expect(reportCount(1)).toBe('1 report');
    expect(reportCount(0)).toBe('0 reports');
    expect(reportCount(1350)).toBe('1,350 reports');
  });
});
