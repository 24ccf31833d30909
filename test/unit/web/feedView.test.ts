// How the feed reads: filters (and their place in the address) and the one-line look of each
// telemetry type.
import { describe, expect, it } from 'vitest';
import { applyFilters, filtersFromSearch, isFiltered, levelOf, searchOfFilters } from '../../../web/src/pages/feed/filters.js';
import { describeRow, feedTime, findingsLine, weatherLine } from '../../../web/src/pages/feed/telemetry.js';
import type { TelemetryType } from '@hub/client';
import type { FeedRow } from '../../../web/src/state/feedRows.js';

function row(id: number, fields: Partial<FeedRow> = {}): FeedRow {
  const r = {
    id,
    type: 'SYSTEM_LOG' as TelemetryType,
    sender_id: 3,
    sender_name: 'alpha',
    sender_role: 'AGENT',
    timestamp: 't',
    level: 'INFO',
    content: `row ${id}`,
    payload: {},
    ...fields,
  };
  return { ...r, haystack: `${r.sender_name}\n${r.type}\n${r.content}`.toLowerCase() };
}

describe('feed filters', () => {
  const rows = [row(4, { level: 'ERROR', content: 'Disk FULL' }), row(3, { sender_name: 'beta' }), row(2, { type: 'WEATHER_UPDATE' }), row(1)];

  it('match a report by the level it reads as, since the hub stores reports as INFO', () => {
    const critical = row(10, { type: 'SECURITY_ALERT', payload: { severity: 'critical', content: 'key leaked' } });
    const medium = row(11, { type: 'SECURITY_ALERT', payload: { severity: 'medium', content: 'old TLS' } });
    const approved = row(12, { type: 'CODE_REVIEW', payload: { verdict: 'approve', content: 'Fine' } });
    const weather = row(13, { type: 'WEATHER_UPDATE', payload: { location: 'Oslo' } });
    expect([critical, medium, approved, weather].map(levelOf)).toEqual(['ERROR', 'WARNING', 'SUCCESS', 'INFO']);
    const errors = applyFilters([...rows, critical, medium], { agent: '', level: 'ERROR', type: '', text: '' });
    expect(errors.map((r) => r.id)).toEqual([4, 10]);
  });

  it('narrow by sender, level, type and text (case-insensitive, sender included)', () => {
    const pick = (f: Partial<ReturnType<typeof filtersFromSearch>>) => applyFilters(rows, { agent: '', level: '', type: '', text: '', ...f }).map((r) => r.id);
    expect(pick({ agent: 'beta' })).toEqual([3]);
    expect(pick({ level: 'ERROR' })).toEqual([4]);
    expect(pick({ type: 'WEATHER_UPDATE' })).toEqual([2]);
    expect(pick({ text: 'disk full' })).toEqual([4]);
    expect(pick({ text: 'BETA' })).toEqual([3]);
    expect(pick({ agent: 'alpha', text: 'row' })).toEqual([2, 1]);
  });

  it('return the same rows when nothing filters', () => {
    expect(applyFilters(rows, { agent: '', level: '', type: '', text: '  ' })).toBe(rows);
  });

  it('round-trip through the address, ignoring values that are not filters', () => {
    const filters = filtersFromSearch(new URLSearchParams('agent=beta&level=ERROR&type=CODE_REVIEW&q=disk'));
    expect(filters).toEqual({ agent: 'beta', level: 'ERROR', type: 'CODE_REVIEW', text: 'disk' });
    expect(searchOfFilters(filters).toString()).toBe('agent=beta&level=ERROR&type=CODE_REVIEW&q=disk');
    expect(filtersFromSearch(new URLSearchParams('level=LOUD&type=CHAT'))).toEqual({ agent: '', level: '', type: '', text: '' });
    expect(isFiltered(filtersFromSearch(new URLSearchParams('')))).toBe(false);
  });
});

describe('feed row look', () => {
  it('colours a log by its level', () => {
    expect(describeRow(row(1, { level: 'ERROR', content: 'boom' }))).toEqual({ tone: 'bad', badge: 'ERROR', summary: 'boom' });
    expect(describeRow(row(1, { level: 'SUCCESS' })).tone).toBe('ok');
    expect(describeRow(row(1, { level: 'WARNING' })).tone).toBe('warn');
  });

  it('summarises the weather', () => {
    const w = { location: 'Oslo', temperature_c: -3.5, feels_like_c: -8, conditions: 'light snow', humidity_pct: 80, wind_speed_ms: 4.1 };
    expect(weatherLine(w)).toMatch(/^Oslo: -3[.,]5 °C, light snow, feels like -8 °C, humidity 80%, wind 4[.,]1 m\/s$/);
    expect(describeRow(row(1, { type: 'WEATHER_UPDATE', payload: w }))).toMatchObject({ tone: 'info', badge: 'weather' });
    expect(describeRow(row(1, { type: 'WEATHER_UPDATE', payload: 'sunny', content: 'sunny' })).summary).toBe('sunny');
  });

  it('shows a review’s verdict and findings', () => {
    const payload = {
      verdict: 'request_changes',
      content: 'Two problems',
      files_reviewed: 3,
      findings: [{ severity: 'error' }, { severity: 'info' }, { severity: 'error' }],
    };
    expect(describeRow(row(1, { type: 'CODE_REVIEW', payload }))).toEqual({
      tone: 'warn',
      badge: 'changes requested',
      summary: 'Two problems · 3 findings (2 error, 1 info) · 3 files',
    });
    expect(describeRow(row(1, { type: 'CODE_REVIEW', payload: { verdict: 'approve', content: 'Fine' } }))).toEqual({
      tone: 'ok',
      badge: 'approved',
      summary: 'Fine · no findings',
    });
  });

  it('shows an alert’s severity', () => {
    const payload = { severity: 'critical', content: '1 secret', path: '/srv', findings: [{ severity: 'critical' }, { severity: 'low' }] };
    expect(describeRow(row(1, { type: 'SECURITY_ALERT', payload }))).toEqual({
      tone: 'bad',
      badge: 'critical',
      summary: '1 secret · 2 findings (1 critical, 1 low) · /srv',
    });
    expect(describeRow(row(1, { type: 'SECURITY_ALERT', payload: { severity: 'medium', content: 'x' } })).tone).toBe('warn');
  });

  it('counts findings by severity, in order', () => {
    expect(findingsLine([], ['error'])).toBeUndefined();
    expect(findingsLine([{ severity: 'warning' }], ['error', 'warning'])).toBe('1 finding (1 warning)');
  });

  it('gives the day only for rows not from today', () => {
    const now = new Date('2026-03-04T12:00:00');
    expect(feedTime(new Date('2026-03-04T09:08:07').toISOString(), now)).not.toMatch(/Mar|3/);
    expect(feedTime(new Date('2026-03-01T09:08:07').toISOString(), now)).toMatch(/1/);
    expect(feedTime('not a time', now)).toBe('not a time');
  });
});
