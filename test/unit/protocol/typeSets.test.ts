// The type sets of the wire (protocol/messages.ts, frames.ts, roles.ts, stats.ts) and the guards
// derived from them with memberOf: each guard accepts exactly its set, and the frame schemas, the
// report payloads and the tallies agree with the sets they are keyed by.
import { describe, expect, it } from 'vitest';
import { ChatTypes, clientFrame, ClientFrameTypes, isChatType, isReportType, isTelemetryType } from '../../../src/protocol/frames.js';
import { memberOf } from '../../../src/protocol/memberOf.js';
import { ChatRowTypes, isLogLevel, LogLevels, ReportTypes, TelemetryTypes } from '../../../src/protocol/messages.js';
import { reportPayloads } from '../../../src/protocol/reports.js';
import { isMachineRole, Roles } from '../../../src/protocol/roles.js';
import { ServerFrameTypes } from '../../../src/protocol/serverFrames.js';
import { isTalliedType, TalliedTypes } from '../../../src/protocol/stats.js';

/** Every name a guard may be asked about: all frame and row types, roles, levels, and strings that are none. */
const NAMES = [...new Set<string>([...ServerFrameTypes, ...ClientFrameTypes, ...ChatRowTypes, ...Roles, ...LogLevels])];
const STRANGERS = ['', 'chat', 'CHAT ', 'toString', 'constructor', '__proto__', 'length', '0'];
const accepted = (guard: (value: string) => boolean) => [...NAMES, ...STRANGERS].filter(guard).sort();

describe('memberOf', () => {
  it('accepts the members of its set and nothing else, names of Object.prototype included', () => {
    const isFruit = memberOf(['apple', 'pear'] as const);
    expect(isFruit('apple')).toBe(true);
    expect(isFruit('pear')).toBe(true);
    for (const other of [...STRANGERS, 'APPLE', 'apple ', 'pea']) expect(isFruit(other)).toBe(false);
  });

  it('narrows a string to the set’s union', () => {
    const isFruit = memberOf(['apple', 'pear'] as const);
    const value: string = 'pear';
    if (!isFruit(value)) throw new Error('pear is a fruit');
    const narrowed: 'apple' | 'pear' = value;
    expect(narrowed).toBe('pear');
  });
});

describe('guards derived from the sets', () => {
  it.each([
    ['isChatType', isChatType, ['CHAT', 'CHAT_STREAM', 'CHAT_STREAM_END']],
    ['isTelemetryType', isTelemetryType, ['CODE_REVIEW', 'SECURITY_ALERT', 'SYSTEM_LOG', 'WEATHER_UPDATE']],
    ['isReportType', isReportType, ['CODE_REVIEW', 'SECURITY_ALERT', 'WEATHER_UPDATE']],
    ['isTalliedType', isTalliedType, ['CODE_REVIEW', 'SECURITY_ALERT', 'SYSTEM_LOG']],
    ['isMachineRole', isMachineRole, ['AGENT', 'BUTLER']],
    ['isLogLevel', isLogLevel, ['ERROR', 'INFO', 'SUCCESS', 'WARNING']],
  ] as const)('%s accepts exactly %j', (_name, guard, expected) => {
    expect(accepted(guard)).toEqual([...expected].sort());
  });

  it('telemetry is SYSTEM_LOG and the reports; the tallied types are telemetry', () => {
    expect(TelemetryTypes).toEqual(['SYSTEM_LOG', ...ReportTypes]);
    for (const type of TalliedTypes) expect(isTelemetryType(type)).toBe(true);
  });
});

describe('schemas keyed by the sets', () => {
  it('a client may send one frame schema per chat and telemetry type, and AUTH_RESPONSE', () => {
    const schemaTypes = clientFrame.options.map((o) => o.shape.type.value);
    expect([...schemaTypes].sort()).toEqual([...ClientFrameTypes].sort());
    expect(ClientFrameTypes).toEqual([...ChatTypes, ...TelemetryTypes, 'AUTH_RESPONSE']);
  });

  it('the hub sends every chat and telemetry type', () => {
    for (const type of [...ChatTypes, ...TelemetryTypes, ...ChatRowTypes]) expect(ServerFrameTypes).toContain(type);
  });

  it('each report type has its payload schema, and only they', () => {
    expect(Object.keys(reportPayloads).sort()).toEqual([...ReportTypes].sort());
  });
});
