// The live actor system at a glance: one card per part the hub registers (router, connections,
// Butler, connector, and whatever it adds later), in a stable order.
import { Empty, ErrorNote, Loading } from '../../components/ui';
import { SummarySection } from './SummarySection';

const ORDER = ['router', 'connector', 'connections', 'butler'];
/** Top-level keys that are not parts of the actor system (the page header shows the node). */
const NOT_SECTIONS = new Set(['node']);

function rank(name: string): number {
  const i = ORDER.indexOf(name);
  return i === -1 ? ORDER.length : i;
}

export function ActorSummary({ data, error, retry }: { data: Record<string, unknown> | undefined; error: unknown; retry(): void }) {
  return (
    <>
      <ErrorNote error={error} retry={retry} />
      {data === undefined ? (
        error ? null : (
          <Loading what="the actor system" />
        )
      ) : Object.keys(data).length === 0 ? (
        <Empty>The hub lists no actors.</Empty>
      ) : (
        <div className="actor-sections">
          {Object.entries(data)
            .filter(([name]) => !NOT_SECTIONS.has(name))
            .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
            .map(([name, value]) => (
              <SummarySection key={name} name={name} value={value} />
            ))}
        </div>
      )}
    </>
  );
}
