// One section of the actor summary (the router, the connections, Butler, the connector, or a part
// this page does not know yet), rendered from its shape: the actor's id links to its snapshot,
// plain fields read as facts, counts by key as chips or a matrix, and listed actors as a table.
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { Badge } from '../../components/ui';
import { JsonTree } from './JsonTree';

type Obj = Record<string, unknown>;

const TITLES: Record<string, string> = { router: 'Router', connections: 'Connections', butler: 'Butler', connector: 'Chat-platform connector' };
/** What an empty list of actors means, per section. */
const NO_ITEMS: Record<string, string> = {
  connections: 'No socket is open.',
  butler: 'No conversation is running: Butler has nobody to answer right now.',
};

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const isScalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const isCounts = (v: unknown): v is Record<string, number> => isObj(v) && Object.values(v).every((n) => typeof n === 'number');
const isMatrix = (v: unknown): v is Record<string, Record<string, number>> => isObj(v) && Object.keys(v).length > 0 && Object.values(v).every(isCounts);
export const humanize = (key: string) => key.replace(/_/g, ' ');
const titleOf = (name: string) => TITLES[name] ?? name.charAt(0).toUpperCase() + humanize(name.slice(1));

/** Actor ids as the hub makes them (its route accepts nothing else). */
export const isActorId = (v: unknown): v is string => typeof v === 'string' && /^[a-z][a-z0-9-]{0,63}$/.test(v);

export function ActorLink({ id }: { id: string }) {
  return (
    <Link href={`/actors/${id}`} className="mono">
      {id}
    </Link>
  );
}

/** A value in one line: a user by name, a short list joined, anything else as compact JSON. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v !== 'object') return String(v);
  if (Array.isArray(v)) return v.length === 0 ? '—' : v.every(isScalar) ? v.join(', ') : `${v.length} item${v.length === 1 ? '' : 's'}`;
  const o = v as Obj;
  if (typeof o['username'] === 'string') return `${o['username']}${typeof o['role'] === 'string' ? ` (${o['role']})` : ''}`;
  const text = JSON.stringify(o);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

function Value({ name, value }: { name: string; value: unknown }): ReactNode {
  if (isScalar(value)) return <span className={typeof value === 'number' ? 'ac-num' : undefined}>{value === null ? '—' : String(value)}</span>;
  if (isCounts(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return <span className="muted">none</span>;
    return (
      <span className="ac-chips">
        {entries.map(([k, n]) => (
          <span key={k} className="ac-chip">
            {k} <strong>{n}</strong>
          </span>
        ))}
      </span>
    );
  }
  if (isMatrix(value)) return <Matrix value={value} label={humanize(name)} />;
  return <JsonTree name={humanize(name)} value={value} openDepth={1} />;
}

/** Counts by two keys (state × role) as a table. */
function Matrix({ value, label }: { value: Record<string, Record<string, number>>; label: string }) {
  const columns = [...new Set(Object.values(value).flatMap((row) => Object.keys(row)))].sort();
  return (
    <table className="ac-matrix" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">
            <span className="sr-only">state</span>
          </th>
          {columns.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {Object.entries(value).map(([row, counts]) => (
          <tr key={row}>
            <th scope="row">{row}</th>
            {columns.map((c) => (
              <td key={c} className="ac-num">
                {counts[c] ?? 0}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The actors a section lists: one row each, the id linking to its snapshot. */
function Items({ name, items, total }: { name: string; items: unknown[]; total: number | undefined }) {
  if (items.length === 0) return <p className="muted ac-items-empty">{NO_ITEMS[name] ?? 'None listed.'}</p>;
  const rows = items.filter(isObj);
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return (
    <div className="table-wrap">
      {total !== undefined && total > items.length ? <p className="muted ac-small">{`Showing ${items.length} of ${total}.`}</p> : null}
      <table className="ac-items" aria-label={`${titleOf(name)}: listed actors`}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {humanize(c)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={typeof row['id'] === 'string' ? row['id'] : i}>
              {columns.map((c) => (
                <td key={c} className={typeof row[c] === 'number' ? 'ac-num' : undefined}>
                  {c === 'id' && isActorId(row[c]) ? (
                    <ActorLink id={row[c]} />
                  ) : c === 'state' && typeof row[c] === 'string' ? (
                    <Badge tone="info">{row[c]}</Badge>
                  ) : (
                    cellText(row[c])
                  )}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function SummarySection({ name, value }: { name: string; value: unknown }) {
  const section: Obj = isObj(value) ? value : { value };
  const { id, kind: _kind, state, status, items, ...rest } = section;
  const facts = Object.entries(rest);
  return (
    <section
      className={`card actor-section${Array.isArray(items) ? ' actor-section-wide' : ''}`}
      aria-labelledby={`section-${name}`}
      data-testid={`section-${name}`}
    >
      <div className="card-head">
        <h2 id={`section-${name}`} className="ac-section-title">
          {titleOf(name)}
          {typeof state === 'string' ? <Badge tone="info">{state}</Badge> : null}
          {typeof status === 'string' && status !== 'active' ? <Badge tone={status === 'error' ? 'bad' : 'warn'}>{status}</Badge> : null}
        </h2>
        {isActorId(id) ? <ActorLink id={id} /> : null}
      </div>
      {facts.length > 0 ? (
        <dl className="ac-facts">
          {facts.map(([key, v]) => (
            <div key={key} className={isScalar(v) ? 'ac-fact' : 'ac-fact ac-fact-wide'}>
              <dt>{humanize(key)}</dt>
              <dd>
                <Value name={key} value={v} />
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
      {Array.isArray(items) ? <Items name={name} items={items} total={typeof rest['total'] === 'number' ? rest['total'] : undefined} /> : null}
    </section>
  );
}
