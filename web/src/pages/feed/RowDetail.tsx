// An opened feed row: the structured report laid out (weather readings, a review's findings, an
// alert's findings), the full text of a log, who sent it and when, and the raw payload.
import type { CodeReviewPayload, SecurityAlertPayload, SecurityFinding, WeatherUpdatePayload } from '@hub/client';
import type { ReactNode } from 'react';
import { Badge, CopyButton, toneOf } from '../../components/ui';
import { reading } from '../../lib/reportText';
import type { FeedRow } from '../../state/feedRows';
import { alertOf, plural, reviewOf, VERDICTS, weatherOf } from './telemetry';

/** Findings beyond this many are in the raw payload. */
const MAX_FINDINGS = 50;

function Fields({ items }: { items: Array<[string, ReactNode]> }) {
  const shown = items.filter(([, v]) => v !== undefined && v !== null && v !== '');
  if (shown.length === 0) return null;
  return (
    <dl className="feed-fields">
      {shown.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

const celsius = (v: number | undefined) => (v === undefined ? undefined : `${reading(v)} °C`);
const exactTime = (iso: string | undefined) => (iso ? new Date(iso).toLocaleString() : undefined);

function Weather({ w }: { w: WeatherUpdatePayload }) {
  return (
    <Fields
      items={[
        ['Location', w.location],
        ['Temperature', celsius(w.temperature_c)],
        ['Feels like', celsius(w.feels_like_c)],
        ['Conditions', w.conditions],
        ['Humidity', w.humidity_pct === undefined ? undefined : `${reading(w.humidity_pct)}%`],
        ['Wind', w.wind_speed_ms === undefined ? undefined : `${reading(w.wind_speed_ms)} m/s`],
        ['Observed', exactTime(w.observed_at)],
        ['Source', w.source],
        ['Note', w.content],
      ]}
    />
  );
}

const where = (file: string, line?: number) => (line === undefined ? file : `${file}:${line}`);
const more = (total: number) =>
  total > MAX_FINDINGS ? <p className="muted">…and {plural(total - MAX_FINDINGS, 'more finding')}, in the raw payload below.</p> : null;

function Review({ r }: { r: CodeReviewPayload }) {
  const verdict = VERDICTS[r.verdict];
  const findings = r.findings ?? [];
  return (
    <>
      <Fields
        items={[
          ['Verdict', <Badge tone={verdict?.tone ?? 'info'}>{verdict?.label ?? r.verdict}</Badge>],
          ['Files reviewed', r.files_reviewed],
          ['Model', r.model],
        ]}
      />
      <p className="feed-text">{r.content}</p>
      {findings.length > 0 ? (
        <ul className="feed-findings" aria-label="Findings">
          {findings.slice(0, MAX_FINDINGS).map((f, i) => (
            <li key={i}>
              <Badge tone={toneOf(f.severity)}>{f.severity}</Badge>
              <code>{where(f.file, f.line)}</code>
              <span className="muted">{f.rule}</span>
              <span>{f.message}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No findings.</p>
      )}
      {more(findings.length)}
    </>
  );
}

function SecurityFindingLine({ f }: { f: SecurityFinding }) {
  if (f.kind === 'secret') {
    return (
      <>
        <span>Secret ({f.rule})</span>
        <code>{where(f.file, f.line)}</code>
        {f.excerpt ? <code className="muted">{f.excerpt}</code> : null}
      </>
    );
  }
  return (
    <>
      <span>
        {f.package}@{f.version}: {f.title ?? f.advisory}
      </span>
      <code>{f.file}</code>
      <span className="muted">
        {f.advisory}
        {f.fixed_in ? `, fixed in ${f.fixed_in}` : ', no fix yet'}
      </span>
    </>
  );
}

function Alert({ a }: { a: SecurityAlertPayload }) {
  const findings = a.findings ?? [];
  return (
    <>
      <Fields
        items={[
          ['Severity', <Badge tone={toneOf(a.severity)}>{a.severity}</Badge>],
          ['Scanned', a.path],
        ]}
      />
      <p className="feed-text">{a.content}</p>
      {findings.length > 0 ? (
        <ul className="feed-findings" aria-label="Findings">
          {findings.slice(0, MAX_FINDINGS).map((f, i) => (
            <li key={i}>
              <Badge tone={toneOf(f.severity)}>{f.severity}</Badge>
              <SecurityFindingLine f={f} />
            </li>
          ))}
        </ul>
      ) : null}
      {more(findings.length)}
    </>
  );
}

function Body({ row }: { row: FeedRow }) {
  const w = row.type === 'WEATHER_UPDATE' ? weatherOf(row.payload) : undefined;
  if (w) return <Weather w={w} />;
  const r = row.type === 'CODE_REVIEW' ? reviewOf(row.payload) : undefined;
  if (r) return <Review r={r} />;
  const a = row.type === 'SECURITY_ALERT' ? alertOf(row.payload) : undefined;
  if (a) return <Alert a={a} />;
  return <p className="feed-text">{row.content}</p>;
}

export function RowDetail({ row }: { row: FeedRow }) {
  const raw = JSON.stringify(row.payload, null, 2);
  return (
    <div className="feed-detail">
      <Body row={row} />
      <Fields
        items={[
          ['Sender', `${row.sender_name} (${row.sender_role.toLowerCase()}, id ${row.sender_id})`],
          ['To', row.target_id === undefined ? 'every dashboard' : `user ${row.target_id}`],
          ['Time', exactTime(row.timestamp)],
          ['Message id', row.id],
        ]}
      />
      <details className="feed-raw">
        <summary>Raw payload</summary>
        <pre>{raw}</pre>
        <CopyButton text={raw} label="Copy payload" />
      </details>
    </div>
  );
}
