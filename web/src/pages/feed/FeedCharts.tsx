// Above the feed: the rate of messages per minute over the last hour, following the filters (counted
// by the hub, GET /api/stats/messages), and, with one sender picked, its reports' numbers over time
// (a weather agent's temperature per location, a reviewer's findings), GET /api/stats/report-fields.
import { useMemo, useState } from 'react';
import { useHub } from '../../app/context';
import { Chart } from '../../components/charts/Chart';
import { toSeconds, type ChartSeries } from '../../components/charts/types';
import { ErrorNote } from '../../components/ui';
import { useLiveStats } from '../../hooks/useLiveStats';
import { isReportType, isTelemetryType, ReportTypes, type ReportFields, type ReportType } from '@hub/client';
import type { FeedFilters } from './filters';
import { TYPE_LABELS } from './telemetry';

const RATE_MINUTES = 60;
const UNITS: Record<string, string> = { temperature_c: '°C', feels_like_c: '°C', humidity_pct: '%', wind_speed_ms: 'm/s' };
const FIELD_LABELS: Record<string, string> = {
  temperature_c: 'temperature',
  feels_like_c: 'feels like',
  humidity_pct: 'humidity',
  wind_speed_ms: 'wind',
  files_reviewed: 'files reviewed',
};
const PREFERRED = ['temperature_c', 'findings'];

export function FeedCharts({ filters, senderTypes }: { filters: FeedFilters; senderTypes: ReadonlySet<string> }) {
  return (
    <div className="feed-charts">
      <RateChart filters={filters} />
      {filters.agent ? <ReadingsChart key={filters.agent} agent={filters.agent} filters={filters} senderTypes={senderTypes} /> : null}
    </div>
  );
}

function RateChart({ filters }: { filters: FeedFilters }) {
  const { stats } = useHub();
  const { agent, level, type, text } = filters;
  const q = text.trim();
  const rate = useLiveStats(
    () => stats.messages({ minutes: RATE_MINUTES, agent_id: agent || undefined, level: level || undefined, type: type || undefined, q: q || undefined }),
    [stats, agent, level, type, q],
    { when: (frame) => isTelemetryType(frame.type) && (!agent || ('sender_name' in frame && frame.sender_name === agent)) },
  );
  const times = useMemo(() => (rate.data?.times ?? []).map(toSeconds), [rate.data]);
  const series = useMemo<ChartSeries[]>(() => (rate.data ? [{ label: 'messages', values: rate.data.total, color: '--chart-1' }] : []), [rate.data]);
  const total = rate.data?.total.reduce((a, b) => a + b, 0);
  return (
    <section className="feed-chart card" aria-labelledby="feed-rate-title">
      <div className="feed-chart-head">
        <h2 id="feed-rate-title">Messages per minute, last hour</h2>
        <span className="muted" data-testid="rate-total">
          {total === undefined ? '…' : `${total.toLocaleString()} in the hour`}
          {agent || level || type || q ? ' · filtered' : ''}
        </span>
      </div>
      <ErrorNote error={rate.error} retry={rate.reload} />
      {rate.data ? <Chart title="Messages per minute" times={times} series={series} kind="bars" height={120} testId="rate-chart" /> : null}
      {level ? <p className="muted feed-chart-note">The level filter counts logs by their level; reports are stored as INFO.</p> : null}
    </section>
  );
}

/** `Oslo · temperature_c` → place `Oslo`, field `temperature_c`; a field alone has no place. */
function split(name: string): { place: string | undefined; field: string } {
  const at = name.lastIndexOf(' · ');
  return at < 0 ? { place: undefined, field: name } : { place: name.slice(0, at), field: name.slice(at + 3) };
}

/** The series of one field as columns over the union of their times (a gap where a series has no point). */
function aligned(data: ReportFields, field: string, sender: string): { times: number[]; series: ChartSeries[] } {
  const picked = data.series.filter((s) => split(s.name).field === field);
  const times = [...new Set(picked.flatMap((s) => s.points.map((p) => toSeconds(p.t))))].sort((a, b) => a - b);
  const index = new Map(times.map((t, i) => [t, i]));
  const series = picked.map((s, i) => {
    const values = new Array<number | null>(times.length).fill(null);
    for (const p of s.points) values[index.get(toSeconds(p.t))!] = p.v;
    return { label: split(s.name).place ?? sender, values, color: i };
  });
  return { times, series };
}

function ReadingsChart({ agent, filters, senderTypes }: { agent: string; filters: FeedFilters; senderTypes: ReadonlySet<string> }) {
  const { stats } = useHub();
  const initial = isReportType(filters.type) ? filters.type : (ReportTypes.find((t) => senderTypes.has(t)) ?? 'WEATHER_UPDATE');
  const [type, setType] = useState<ReportType>(initial);
  const [chosen, setChosen] = useState<string>();
  const fields = useLiveStats(() => stats.reportFields(agent, type), [stats, agent, type], {
    when: (frame) => frame.type === type && 'sender_name' in frame && frame.sender_name === agent,
  });
  const names = useMemo(() => [...new Set((fields.data?.series ?? []).map((s) => split(s.name).field))], [fields.data]);
  const field = chosen && names.includes(chosen) ? chosen : (PREFERRED.find((f) => names.includes(f)) ?? names[0]);
  const picture = useMemo(() => (fields.data && field ? aligned(fields.data, field, agent) : undefined), [fields.data, field, agent]);
  const unit = field ? UNITS[field] : undefined;
  return (
    <section className="feed-chart card" aria-labelledby="feed-readings-title">
      <div className="feed-chart-head">
        <h2 id="feed-readings-title">Readings of {agent}, last 24 hours</h2>
        <label>
          <span className="sr-only">Reports to plot</span>
          <select value={type} onChange={(e) => setType(e.target.value as ReportType)}>
            {ReportTypes.map((t) => (
              <option key={t} value={t}>
                {TYPE_LABELS[t]}
              </option>
            ))}
          </select>
        </label>
        {names.length > 1 ? (
          <label>
            <span className="sr-only">Field</span>
            <select value={field} onChange={(e) => setChosen(e.target.value)} data-testid="readings-field">
              {names.map((n) => (
                <option key={n} value={n}>
                  {FIELD_LABELS[n] ?? n}
                </option>
              ))}
            </select>
          </label>
        ) : null}
      </div>
      <ErrorNote error={fields.error} retry={fields.reload} />
      {picture && picture.times.length > 0 ? (
        <Chart
          title={`${FIELD_LABELS[field!] ?? field} of ${agent}`}
          times={picture.times}
          series={picture.series}
          kind="line"
          unit={unit}
          height={150}
          testId="readings-chart"
        />
      ) : fields.data ? (
        <p className="muted">
          No numbers in {agent}’s {TYPE_LABELS[type].toLowerCase()} reports of the last 24 hours.
        </p>
      ) : null}
    </section>
  );
}
