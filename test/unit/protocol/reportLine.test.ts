// The one-line last_report a report leaves: built from a typed report's fields, the text of a text
// report under its name, a SYSTEM_LOG's content; always one line within the limit.
import { describe, expect, it } from 'vitest';
import { reportLine } from '../../../src/protocol/reportLine.js';

describe('reportLine', () => {
  it.each([
    ['SYSTEM_LOG', { level: 'INFO', content: 'deployed v2' }, 'deployed v2'],
    ['WEATHER_UPDATE', { location: 'Oslo', temperature_c: -3.5 }, 'Weather in Oslo: -3.5 °C'],
    ['WEATHER_UPDATE', { location: 'Oslo', temperature_c: 0, conditions: 'light snow', content: 'their own words' }, 'Weather in Oslo: 0 °C, light snow'],
    ['CODE_REVIEW', { verdict: 'request_changes', content: '2 findings in 1 file' }, 'Code review (request changes): 2 findings in 1 file'],
    ['SECURITY_ALERT', { severity: 'critical', content: 'AWS key in config.js' }, 'Security alert (critical): AWS key in config.js'],
    ['CODE_REVIEW', 'LGTM', 'Code review: LGTM'],
    ['SYSTEM_LOG', 'raw text', 'raw text'],
  ] as const)('%s %j → %s', (type, payload, line) => {
    expect(reportLine(type, payload, 512)).toBe(line);
  });

  it('makes one line of many, without control characters, within the limit', () => {
    expect(reportLine('SYSTEM_LOG', { level: 'INFO', content: 'first\n\n  second\u0000third\t' }, 512)).toBe('first second third');
    const long = reportLine('SECURITY_ALERT', { severity: 'high', content: 'x'.repeat(1000) }, 40);
    expect(long).toHaveLength(40);
    expect(long.endsWith('…')).toBe(true);
  });
});
