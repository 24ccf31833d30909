// A JSON value as a tree to read: objects and arrays fold (native <details>, so keyboard and screen
// readers work as they do everywhere), the top levels open; leaves coloured by type.
import { memo } from 'react';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isContainer = (v: unknown): v is Json[] | Record<string, Json> => v !== null && typeof v === 'object';

function Leaf({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="json-null">null</span>;
  if (typeof value === 'string') return <span className="json-string">"{value}"</span>;
  if (typeof value === 'number') return <span className="json-number">{value}</span>;
  if (typeof value === 'boolean') return <span className="json-bool">{String(value)}</span>;
  return <span>{String(value)}</span>;
}

const Node = memo(function Node({ name, value, depth, openDepth }: { name: string; value: unknown; depth: number; openDepth: number }) {
  const key = <span className="json-key">{name}</span>;
  if (!isContainer(value)) {
    return (
      <li className="json-leaf">
        {key}
        <span className="json-colon">: </span>
        <Leaf value={value} />
      </li>
    );
  }
  const array = Array.isArray(value);
  const entries: Array<[string, unknown]> = array ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  if (entries.length === 0) {
    return (
      <li className="json-leaf">
        {key}
        <span className="json-colon">: </span>
        <span className="json-null">{array ? '[]' : '{}'}</span>
      </li>
    );
  }
  return (
    <li>
      <details open={depth < openDepth}>
        <summary>
          {key}{' '}
          <span className="json-count">
            {array ? `[${entries.length} item${entries.length === 1 ? '' : 's'}]` : `{${entries.length} key${entries.length === 1 ? '' : 's'}}`}
          </span>
        </summary>
        <ul>
          {entries.map(([k, v]) => (
            <Node key={k} name={k} value={v} depth={depth + 1} openDepth={openDepth} />
          ))}
        </ul>
      </details>
    </li>
  );
});

/** `openDepth`: levels open at first (Infinity: all). Remount (a new key) to apply a new one. */
export function JsonTree({ value, name, openDepth = 2 }: { value: unknown; name: string; openDepth?: number }) {
  return (
    <ul className="json-tree">
      <Node name={name} value={value} depth={0} openDepth={openDepth} />
    </ul>
  );
}
