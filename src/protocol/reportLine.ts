// The one line an agent's latest report leaves as its `last_report` (wire.md §2): what the Overview,
// Butler's `agents` answer and the model's list_agents tool show beside its presence.
import type { TelemetryType } from './messages.js';
import type { CodeReviewPayload, SecurityAlertPayload, WeatherUpdatePayload } from './reports.js';

const LABELS: Record<TelemetryType, string> = {
  SYSTEM_LOG: 'Log',
  WEATHER_UPDATE: 'Weather',
  CODE_REVIEW: 'Code review',
  SECURITY_ALERT: 'Security alert',
};

/** Line breaks, control characters (NUL too: PostgreSQL text cannot hold it) and runs of spaces become one space. */
// eslint-disable-next-line no-control-regex
const oneLine = (text: string) => text.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function weatherLine(p: WeatherUpdatePayload): string {
  const parts = [`${p.temperature_c} °C`];
  if (p.conditions) parts.push(p.conditions);
  return `Weather in ${p.location}: ${parts.join(', ')}`;
}

function reviewLine(p: CodeReviewPayload): string {
  return `Code review (${p.verdict.replace('_', ' ')}): ${p.content}`;
}

function alertLine(p: SecurityAlertPayload): string {
  return `Security alert (${p.severity}): ${p.content}`;
}

/**
 * A validated telemetry payload as one readable line of at most `max` characters. A SYSTEM_LOG
 * leaves its content (as the older hub does); a typed report a line built from its fields; a report
 * sent as text, that text under the report's name.
 */
export function reportLine(type: TelemetryType, payload: unknown, max: number): string {
  let line: string;
  if (typeof payload === 'string') line = type === 'SYSTEM_LOG' ? payload : `${LABELS[type]}: ${payload}`;
  else if (type === 'SYSTEM_LOG') line = (payload as { content: string }).content;
  else if (type === 'WEATHER_UPDATE') line = weatherLine(payload as WeatherUpdatePayload);
  else if (type === 'CODE_REVIEW') line = reviewLine(payload as CodeReviewPayload);
  else line = alertLine(payload as SecurityAlertPayload);
  return clip(oneLine(line), max);
}
