// Which file a benchmark run's report goes to: only a full run of every scenario at its default load
// may replace the committed record (bench/results/latest.md), so trying one scenario cannot overwrite it.
import { describe, expect, it } from 'vitest';
import { parseCommand, reportName } from '../../../bench/lib/plan.js';

const nameOf = (...argv: string[]) => reportName(parseCommand(argv, {}).plan);

describe('the benchmark report name', () => {
  it('is the record for a full run of everything at the default load', () => {
    expect(nameOf()).toBe('latest');
    expect(nameOf('--keep')).toBe('latest');
    expect(nameOf('--pg')).toBe('latest-pg');
  });

  it('is last-run for any other run', () => {
    expect(nameOf('--quick')).toBe('last-run');
    expect(nameOf('--only', 'butler')).toBe('last-run');
    expect(nameOf('--profile')).toBe('last-run');
    expect(nameOf('--hub-env', 'SQLITE_SYNCHRONOUS=normal')).toBe('last-run');
    expect(nameOf('--windows', '64')).toBe('last-run');
    expect(nameOf('--idle-sockets', '10000,50000')).toBe('last-run');
    expect(nameOf('--pg', '--only', 'targeted')).toBe('last-run');
  });
});
