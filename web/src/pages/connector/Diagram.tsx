// Paints the lifecycle layout (diagram.ts) as SVG: the current state marked, the transitions its
// allowed actions can take drawn in the accent colour, and the same said in words beside it for
// anyone who cannot see the picture.
import { useId, useMemo } from 'react';
import type { DiagramEdge, DiagramLayout, Highlight, MachineInput, NodeBox } from './diagram';
import { actionLabel, describeOutcome, highlightFor, layoutMachine, outcomesFrom } from './diagram';

interface Props {
  machine: MachineInput;
  /** null before any connector exists. */
  current: string | null;
  allowed: readonly string[];
  /** Narrow screens: two states per row, larger type, guards as footnotes. */
  compact: boolean;
}

export function LifecycleDiagram({ machine, current, allowed, compact }: Props) {
  const layout = useMemo(() => layoutMachine(machine, compact ? { columns: 2, compact } : {}), [machine, compact]);
  const highlight = useMemo(() => highlightFor(machine, current, allowed), [machine, current, allowed]);
  const id = useId();
  const titleId = `${id}-title`;
  const descId = `${id}-desc`;
  const summary = current === null ? 'No connector exists yet; creating one starts it in draft.' : `The connector is in state ${current}.`;

  return (
    <figure className={`cx-diagram${compact ? ' cx-compact' : ''}`} data-testid="connector-diagram" data-current={current ?? ''}>
      <svg
        role="img"
        aria-labelledby={`${titleId} ${descId}`}
        viewBox={`${layout.viewBox.x} ${layout.viewBox.y} ${layout.viewBox.width} ${layout.viewBox.height}`}
        width="100%"
        style={{ maxWidth: layout.viewBox.width * 1.1 }}
      >
        <title id={titleId}>Connector lifecycle</title>
        <desc id={descId}>
          {`States ${machine.states.join(', ')}. ${summary} ` +
            layout.edges.map((e) => `${e.from ?? 'creation'} to ${e.to} on ${e.events.map(actionLabel).join(' or ')}`).join('; ') +
            '.'}
        </desc>
        <defs>
          {(['idle', 'active'] as const).map((kind) => (
            <marker
              key={kind}
              id={`${id}-arrow-${kind}`}
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="8"
              markerHeight="8"
              markerUnits="userSpaceOnUse"
              orient="auto-start-reverse"
            >
              <path d="M 0 0 L 10 5 L 0 10 z" className={`cx-arrow cx-arrow-${kind}`} />
            </marker>
          ))}
        </defs>
        <circle className={`cx-start${highlight.current === null ? ' cx-active' : ''}`} cx={layout.start.x} cy={layout.start.y} r={layout.start.r} />
        {layout.edges.map((edge) => (
          <Edge key={edge.key} edge={edge} active={highlight.edges.has(edge.key)} markerId={id} lineHeight={layout.lineHeight} />
        ))}
        {layout.nodes.map((node) => (
          <StateNode key={node.state} node={node} layout={layout} highlight={highlight} markerId={id} />
        ))}
      </svg>
      {layout.notes.length > 0 ? (
        <p className="cx-diagram-notes">
          {layout.notes.map((n) => (
            <span key={n.mark}>
              <span className="mono">{n.mark}</span> {n.text}
            </span>
          ))}
        </p>
      ) : null}
      <figcaption>
        <DiagramText machine={machine} current={current} allowed={allowed} />
      </figcaption>
    </figure>
  );
}

function Edge({ edge, active, markerId, lineHeight }: { edge: DiagramEdge; active: boolean; markerId: string; lineHeight: number }) {
  const { label } = edge;
  return (
    <g className={`cx-edge cx-edge-${edge.kind}${active ? ' cx-active' : ''}`} data-edge={edge.key} data-active={active || undefined}>
      <path d={edge.path} markerEnd={`url(#${markerId}-arrow-${active ? 'active' : 'idle'})`} />
      <text x={label.x} y={label.y} textAnchor={label.anchor}>
        {label.lines.map((line, i) => (
          <tspan key={i} x={label.x} dy={i === 0 ? 0 : lineHeight} className={line.startsWith('if ') ? 'cx-guard' : undefined}>
            {line}
          </tspan>
        ))}
      </text>
    </g>
  );
}

function StateNode({ node, layout, highlight, markerId }: { node: NodeBox; layout: DiagramLayout; highlight: Highlight; markerId: string }) {
  const current = highlight.current === node.state;
  const cx = node.x + node.width / 2;
  const loopActive = current && node.loops.some((e) => highlight.loopEvents.has(e));
  // The loop: out of the top edge near the right corner and back in, as compact as a self-transition gets.
  const lx = node.x + node.width - 34;
  const loop = `M ${lx} ${node.y} C ${lx - 2} ${node.y - 20}, ${lx + 22} ${node.y - 20}, ${lx + 20} ${node.y - 2}`;
  return (
    <g className={`cx-node${current ? ' cx-current' : ''}`} data-state={node.state} data-current={current || undefined}>
      <rect x={node.x} y={node.y} width={node.width} height={node.height} rx={10} />
      <text className="cx-node-name" x={cx} y={node.y + layout.nameBaseline} textAnchor="middle">
        {node.state}
      </text>
      {node.loops.length > 0 ? (
        <>
          <path className={`cx-loop${loopActive ? ' cx-active' : ''}`} d={loop} markerEnd={`url(#${markerId}-arrow-${loopActive ? 'active' : 'idle'})`} />
          <text className="cx-loop-list" x={cx} y={node.y + layout.listBaseline} textAnchor="middle">
            {node.loopLines.map((line, i) => (
              <tspan key={i} x={cx} dy={i === 0 ? 0 : layout.lineHeight}>
                {line.map((event, j) => (
                  <tspan key={event} className={current && highlight.loopEvents.has(event) ? 'cx-loop-on' : undefined}>
                    {j > 0 ? ' · ' : ''}
                    {actionLabel(event)}
                  </tspan>
                ))}
              </tspan>
            ))}
          </text>
        </>
      ) : null}
    </g>
  );
}

/** The picture in words: where the connector is and where each allowed action leads. */
function DiagramText({ machine, current, allowed }: { machine: MachineInput; current: string | null; allowed: readonly string[] }) {
  if (current === null) return <p className="cx-diagram-text">No connector yet: saving the form creates one, in state draft.</p>;
  const outcomes = outcomesFrom(machine, current, allowed);
  return (
    <div className="cx-diagram-text">
      <p data-testid="diagram-current">
        Current state: <strong>{current}</strong>
      </p>
      {outcomes.length > 0 ? (
        <ul>
          {outcomes.map((o) => (
            <li key={o.action}>
              <strong>{actionLabel(o.event)}</strong>: {describeOutcome(current, o)}
            </li>
          ))}
        </ul>
      ) : (
        <p>No action is possible in this state.</p>
      )}
    </div>
  );
}
