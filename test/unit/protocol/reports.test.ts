// Payload shapes of WEATHER_UPDATE, CODE_REVIEW and SECURITY_ALERT as the WebSocket inbox checks them:
// the documented object or text is accepted; anything else is refused with invalid_payload naming the field.
// Clients read delivered payloads with the same schemas, past the fields the hub adds for older dashboards.
import { describe, expect, it } from 'vitest';
import { decodeFrame } from '../../../src/ws/inbox.js';
import { serverFrame } from '../../../src/protocol/serverFrames.js';

function decode(value: unknown) {
  return decodeFrame(new TextEncoder().encode(JSON.stringify(value)).buffer as ArrayBuffer, false, 1 << 20);
}

const weather = {
  location: 'Oslo',
  temperature_c: -3.5,
  feels_like_c: -8,
  conditions: 'light snow',
  humidity_pct: 80,
  wind_speed_ms: 4.1,
  observed_at: '2026-01-05T10:00:00Z',
  source: 'openweathermap',
  content: 'Oslo: -3.5 °C, light snow',
};
const review = {
  verdict: 'request_changes',
  content: '2 findings in 1 file',
  files_reviewed: 1,
  model: 'gpt-4o-mini',
  findings: [
    { file: 'src/a.ts', line: 10, severity: 'error', rule: 'no-eval', message: 'eval() runs arbitrary code' },
    { file: 'src/a.ts', severity: 'info', rule: 'model', message: 'consider a smaller function' },
  ],
};
const alert = {
  severity: 'critical',
  content: '1 secret, 1 vulnerable dependency',
  path: '/srv/app',
  findings: [
    { kind: 'secret', severity: 'critical', rule: 'private-key', file: 'deploy/key.pem', line: 1, excerpt: '-----BEGIN RSA PRIVATE KEY-----' },
    {
      kind: 'vulnerable_dependency',
      severity: 'high',
      file: 'package-lock.json',
      package: 'lodash',
      version: '4.17.15',
      advisory: 'GHSA-p6mc-m468-83gw',
      title: 'Prototype pollution',
      fixed_in: '4.17.19',
    },
  ],
};

describe('report payloads', () => {
  it.each<[string, unknown]>([
    ['WEATHER_UPDATE', weather],
    ['WEATHER_UPDATE', { location: 'Paris', temperature_c: 12 }],
    ['CODE_REVIEW', review],
    ['CODE_REVIEW', { verdict: 'approve', content: 'no findings' }],
    ['SECURITY_ALERT', alert],
    ['SECURITY_ALERT', { severity: 'low', content: 'one weak finding' }],
  ])('accepts a full or minimal %s', (type, payload) => {
    const result = decode({ type, payload, local_id: 'l1' });
    expect(result).toEqual({ ok: true, frame: { type, payload, local_id: 'l1' } });
  });

  it.each(['WEATHER_UPDATE', 'CODE_REVIEW', 'SECURITY_ALERT'])('still accepts text for %s (agents of the older hub)', (type) => {
    expect(decode({ type, payload: 'all quiet' })).toEqual({ ok: true, frame: { type, payload: 'all quiet' } });
  });

  it.each<[string, unknown, string]>([
    ['WEATHER_UPDATE', { temperature_c: 3 }, 'payload.location is required'],
    ['WEATHER_UPDATE', { location: 'Oslo', temperature_c: '3' }, 'payload.temperature_c must be a number'],
    ['WEATHER_UPDATE', { location: 'Oslo', temperature_c: 3, humidity_pct: 140 }, 'payload.humidity_pct must be at most 100'],
    ['WEATHER_UPDATE', { location: 'Oslo', temperature_c: 3, observed_at: 'yesterday' }, 'payload.observed_at must be a valid datetime'],
    ['WEATHER_UPDATE', { location: 'Oslo', temperature_c: 3, temp: 3 }, 'unknown field: payload.temp'],
    ['WEATHER_UPDATE', 21, 'payload must be a JSON object or a string'],
    ['WEATHER_UPDATE', [1, 2], 'payload must be a JSON object or a string'],
    ['WEATHER_UPDATE', null, 'payload is required'],
    ['CODE_REVIEW', { content: 'x' }, 'payload.verdict is required'],
    ['CODE_REVIEW', { verdict: 'lgtm', content: 'x' }, 'payload.verdict must be one of approve, comment, request_changes'],
    ['CODE_REVIEW', { verdict: 'comment', content: 'x', findings: [{ file: 'a', severity: 'warning', rule: 'r' }] }, 'payload.findings.0.message is required'],
    [
      'CODE_REVIEW',
      { verdict: 'comment', content: 'x', findings: [{ file: 'a', line: 0, severity: 'warning', rule: 'r', message: 'm' }] },
      'payload.findings.0.line must be at least 1',
    ],
    ['SECURITY_ALERT', { content: 'x' }, 'payload.severity is required'],
    ['SECURITY_ALERT', { severity: 'high' }, 'payload.content is required'],
    [
      'SECURITY_ALERT',
      { severity: 'high', content: 'x', findings: [{ kind: 'virus', severity: 'high' }] },
      'payload.findings.0.kind must be one of secret, vulnerable_dependency',
    ],
    [
      'SECURITY_ALERT',
      {
        severity: 'high',
        content: 'x',
        findings: [{ kind: 'vulnerable_dependency', severity: 'high', file: 'package-lock.json', package: 'x', version: '1.0.0' }],
      },
      'payload.findings.0.advisory is required',
    ],
  ])('refuses %s %j with invalid_payload: %s', (type, payload, message) => {
    const result = decode({ type, payload, local_id: 'bad' });
    expect(result).toEqual({ ok: false, code: 'invalid_payload', message, localId: 'bad' });
  });

  it('refuses text longer than 64 KiB', () => {
    const result = decode({ type: 'CODE_REVIEW', payload: 'x'.repeat(65_537) });
    expect(result).toMatchObject({ ok: false, code: 'invalid_payload', message: 'payload must be at most 65536 characters' });
  });
});

describe('delivered telemetry payloads', () => {
  const envelope = { id: 9, sender_id: 4, sender_name: 'weather', sender_role: 'AGENT', timestamp: '2026-01-01T10:00:00.000Z' };
  const added = { id: 9, agent_id: 'weather', timestamp: '2026-01-01T10:00:00.000Z' };

  it("reads the hub's added id, agent_id and timestamp past the strict report schemas, and leaves them out of the typed payload", () => {
    const weather = serverFrame.parse({ ...envelope, type: 'WEATHER_UPDATE', payload: { location: 'Oslo', temperature_c: -3, ...added } });
    expect(weather).toMatchObject({ id: 9, payload: { location: 'Oslo', temperature_c: -3 } });
    expect(weather).not.toHaveProperty('payload.agent_id');
    const log = serverFrame.parse({ ...envelope, type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'up', ...added } });
    expect(log).toMatchObject({ payload: { level: 'INFO', content: 'up' } });
    expect(log).not.toHaveProperty('payload.id');
    // Anything else unknown is still refused.
    expect(serverFrame.safeParse({ ...envelope, type: 'WEATHER_UPDATE', payload: { location: 'Oslo', temperature_c: -3, temp: 1 } }).success).toBe(false);
  });
});
