// How a feed row reads at a glance: its colour, its badge (a log's level, a review's verdict, an
// alert's severity) and one summary line built from the structured payload. Report payloads are
// objects of the hub's schemas (src/protocol/reports.ts) or, from older agents, plain text.
import type { CodeReviewPayload, SecurityAlertPayload, TelemetryType, WeatherUpdatePayload } from '@hub/client';
import { toneOf, type Tone } from '../../components/ui';
import type { FeedRow } from '../../state/feedRows';

export interface RowLook {
  tone: Tone;
  badge: string;
  summary: string;
}

export const TYPE_LABELS: Record<TelemetryType, string> = {
  SYSTEM_LOG: 'Log',
  WEATHER_UPDATE: 'Weather',
  CODE_REVIEW: 'Review',
  SECURITY_ALERT: 'Security',
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function weatherOf(payload: unknown): WeatherUpdatePayload | undefined {
  return isObject(payload) && typeof payload['location'] === 'string' && typeof payload['temperature_c'] === 'number'
    ? (payload as unknown as WeatherUpdatePayload)
    : undefined;
}

export function reviewOf(payload: unknown): CodeReviewPayload | undefined {
  return isObject(payload) && typeof payload['verdict'] === 'string' ? (payload as unknown as CodeReviewPayload) : undefined;
}

export function alertOf(payload: unknown): SecurityAlertPayload | undefined {
  return isObject(payload) && typeof payload['severity'] === 'string' ? (payload as unknown as SecurityAlertPayload) : undefined;
}

const number = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

/** `Berlin: 12.5 °C, light rain (feels like 10 °C), humidity 80%, wind 3.2 m/s`. */
export function weatherLine(w: WeatherUpdatePayload): string {
  const parts = [`${number.format(w.temperature_c)} °C`];
  if (w.conditions) parts.push(w.conditions);
  if (w.feels_like_c !== undefined) parts.push(`feels like ${number.format(w.feels_like_c)} °C`);
  if (w.humidity_pct !== undefined) parts.push(`humidity ${number.format(w.humidity_pct)}%`);
  if (w.wind_speed_ms !== undefined) parts.push(`wind ${number.format(w.wind_speed_ms)} m/s`);
  return `${w.location}: ${parts.join(', ')}`;
}

export const VERDICTS: Record<CodeReviewPayload['verdict'], { label: string; tone: Tone }> = {
  approve: { label: 'approved', tone: 'ok' },
  comment: { label: 'comments', tone: 'info' },
  request_changes: { label: 'changes requested', tone: 'warn' },
};

/** `3 findings (1 error, 2 warnings)`, or undefined without findings. */
export function findingsLine(findings: ReadonlyArray<{ severity: string }> | undefined, order: readonly string[]): string | undefined {
  if (!findings || findings.length === 0) return undefined;
  const counts = new Map<string, number>();
  for (const f of findings) counts.set(f.severity, (counts.get(f.severity) ?? 0) + 1);
  const detail = order.filter((s) => counts.has(s)).map((s) => `${counts.get(s)} ${s}`);
  return `${plural(findings.length, 'finding')} (${detail.join(', ')})`;
}

const REVIEW_ORDER = ['error', 'warning', 'info'];
const ALERT_ORDER = ['critical', 'high', 'medium', 'low'];

const joined = (...parts: Array<string | undefined>) => parts.filter(Boolean).join(' · ');

export function describeRow(row: Pick<FeedRow, 'type' | 'payload' | 'level' | 'content'>): RowLook {
  switch (row.type) {
    case 'SYSTEM_LOG':
      return { tone: toneOf(row.level ?? 'INFO'), badge: row.level ?? 'INFO', summary: row.content };
    case 'WEATHER_UPDATE': {
      const w = weatherOf(row.payload);
      return { tone: 'info', badge: 'weather', summary: w ? weatherLine(w) : row.content };
    }
    case 'CODE_REVIEW': {
      const r = reviewOf(row.payload);
      if (!r) return { tone: 'info', badge: 'review', summary: row.content };
      const verdict = VERDICTS[r.verdict] ?? { label: r.verdict, tone: 'info' };
      const files = r.files_reviewed === undefined ? undefined : plural(r.files_reviewed, 'file');
      return { tone: verdict.tone, badge: verdict.label, summary: joined(r.content, findingsLine(r.findings, REVIEW_ORDER) ?? 'no findings', files) };
    }
    case 'SECURITY_ALERT': {
      const a = alertOf(row.payload);
      if (!a) return { tone: 'warn', badge: 'alert', summary: row.content };
      return { tone: toneOf(a.severity), badge: a.severity, summary: joined(a.content, findingsLine(a.findings, ALERT_ORDER), a.path) };
    }
  }
}

const timeOnly = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const dayAndTime = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** Clock time for today's rows, with the day for older ones. */
export function feedTime(iso: string, now = new Date()): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return at.toDateString() === now.toDateString() ? timeOnly.format(at) : dayAndTime.format(at);
}
