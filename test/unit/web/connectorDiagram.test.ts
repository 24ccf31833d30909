// The connector page's lifecycle diagram: the layout drawn from the hub's own machine description
// (every state boxed once, every transition drawn or listed, nothing overlapping, a layout for a
// laptop and one for a phone), and what is highlighted and said for each state.
import { describe, expect, it } from 'vitest';
import { allowedActions, ConnectorStates, describeMachine } from '../../../src/connector/machine.js';
import {
  describeOutcome,
  highlightFor,
  humanize,
  labelBox,
  layoutMachine,
  outcomesFrom,
  ranks,
  wrapWords,
  type DiagramLayout,
  type NodeBox,
} from '../../../web/src/pages/connector/diagram.js';

const machine = describeMachine();

function overlaps(a: NodeBox, b: NodeBox): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

function inside(layout: DiagramLayout, x: number, y: number): boolean {
  const v = layout.viewBox;
  return x >= v.x && x <= v.x + v.width && y >= v.y && y <= v.y + v.height;
}

describe('lifecycle layout', () => {
  it('ranks states by distance from the initial state', () => {
    expect(Object.fromEntries(ranks(machine))).toEqual({ draft: 0, verified: 1, enabled: 2, disabled: 3 });
    // A state nothing leads to still gets a place, after the rest.
    expect(ranks({ initial: 'a', states: ['a', 'b', 'lonely'], transitions: [{ from: 'a', event: 'GO', to: 'b' }] }).get('lonely')).toBe(2);
  });

  it('puts the four states left to right in one row, creation entering draft from the left', () => {
    const layout = layoutMachine(machine);
    expect(layout.nodes.map((n) => n.state)).toEqual(['draft', 'verified', 'enabled', 'disabled']);
    const ys = new Set(layout.nodes.map((n) => n.y));
    expect(ys.size).toBe(1);
    const xs = layout.nodes.map((n) => n.x);
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
    const draft = layout.nodes[0]!;
    expect(layout.start.x).toBeLessThan(draft.x);
    const create = layout.edges.find((e) => e.from === null)!;
    expect(create).toMatchObject({ key: '->draft', to: 'draft', kind: 'create', events: ['CREATE'] });
  });

  it('draws every transition that changes state once, and lists the ones that stay in their box', () => {
    for (const compact of [false, true]) {
      const layout = layoutMachine(machine, compact ? { columns: 2, compact } : {});
      const drawn = layout.edges.flatMap((e) => e.events.map((ev) => `${e.from ?? ''}->${e.to}:${ev}`));
      const moving = machine.transitions.filter((t) => t.from !== t.to).map((t) => `${t.from ?? ''}->${t.to}:${t.event}`);
      expect(new Set(drawn)).toEqual(new Set(moving));
      expect(new Set(layout.edges.map((e) => e.key)).size).toBe(layout.edges.length);
      for (const node of layout.nodes) {
        const staying = machine.transitions.filter((t) => t.from === node.state && t.to === node.state).map((t) => t.event);
        expect(new Set(node.loops)).toEqual(new Set(staying));
        expect(node.loopLines.flat()).toEqual(node.loops);
      }
      expect(layout.nodes.find((n) => n.state === 'draft')!.loops).toEqual(['UPDATE', 'TEST_MESSAGE']);
    }
  });

  it('joins neighbours with straight lines, side by side where both directions exist, and arcs back to draft under the row', () => {
    const layout = layoutMachine(machine);
    const edge = (key: string) => layout.edges.find((e) => e.key === key)!;
    expect(edge('draft->verified').kind).toBe('straight');
    expect(edge('verified->draft').kind).toBe('straight');
    expect(edge('draft->verified').path).not.toBe(edge('verified->draft').path);
    expect(edge('enabled->disabled').kind).toBe('straight');
    expect(edge('disabled->enabled').kind).toBe('straight');
    const bottom = layout.nodes[0]!.y + layout.nodes[0]!.height;
    for (const key of ['enabled->draft', 'disabled->draft']) {
      expect(edge(key).kind).toBe('arc');
      expect(edge(key).label.y).toBeGreaterThan(bottom);
      expect(edge(key).label.lines).toEqual(['update settings', 'if changes credentials']);
    }
    // The longer arc runs deeper, so the two never cross.
    const depth = (key: string) =>
      Math.max(
        ...edge(key)
          .path.match(/-?\d+(\.\d+)?/g)!
          .map(Number)
          .filter((_, i) => i % 2 === 1),
      );
    expect(depth('disabled->draft')).toBeGreaterThan(depth('enabled->draft'));
  });

  it('lays out a 2 × 2 grid for a phone, with guards as footnotes and only straight lines', () => {
    const layout = layoutMachine(machine, { columns: 2, compact: true });
    const cell = Object.fromEntries(layout.nodes.map((n) => [n.state, `${n.y > 0 ? 1 : 0},${n.x > 0 ? 1 : 0}`]));
    // Filled row by row, the second right to left, so the chain turns the corner.
    expect(cell).toEqual({ draft: '0,0', verified: '0,1', enabled: '1,1', disabled: '1,0' });
    expect(layout.edges.every((e) => e.kind !== 'arc')).toBe(true);
    expect(layout.notes).toEqual([{ mark: '*', text: 'if changes credentials' }]);
    expect(layout.edges.find((e) => e.key === 'enabled->draft')!.label.lines).toEqual(['update settings*']);
    const regular = layoutMachine(machine);
    expect(regular.notes).toEqual([]);
    expect(layout.viewBox.width).toBeLessThan(regular.viewBox.width / 1.5);
  });

  it('keeps boxes apart and everything inside the view box', () => {
    for (const options of [{}, { columns: 2, compact: true }]) {
      const layout = layoutMachine(machine, options);
      for (const a of layout.nodes) for (const b of layout.nodes) if (a !== b) expect(overlaps(a, b)).toBe(false);
      for (const n of layout.nodes) {
        expect(inside(layout, n.x, n.y)).toBe(true);
        expect(inside(layout, n.x + n.width, n.y + n.height)).toBe(true);
      }
      for (const e of layout.edges) {
        const nums = e.path.match(/-?\d+(\.\d+)?/g)!.map(Number);
        for (let i = 0; i < nums.length; i += 2) expect(inside(layout, nums[i]!, nums[i + 1]!), `${e.key} ${e.path}`).toBe(true);
        expect(inside(layout, e.label.x, e.label.y), e.key).toBe(true);
      }
    }
  });

  it('puts no label over a box: on a phone a label between two boxes wraps to the gap between them', () => {
    for (const options of [{}, { columns: 2, compact: true }]) {
      const layout = layoutMachine(machine, options);
      for (const e of layout.edges) {
        const box = labelBox(e.label, layout.lineHeight, layout.charWidth);
        for (const n of layout.nodes) expect(overlaps(n, { ...n, ...box }), `${e.key} label over ${n.state}`).toBe(false);
      }
    }
    const compact = layoutMachine(machine, { columns: 2, compact: true });
    expect(compact.edges.find((e) => e.key === 'verified->draft')!.label.lines).toEqual(['update', 'settings*']);
    expect(compact.edges.find((e) => e.key === 'draft->verified')!.label.lines).toEqual(['verify']);
    expect(wrapWords(['update settings', 'if changes credentials'], 11)).toEqual(['update', 'settings', 'if changes', 'credentials']);
  });

  it('ends straight edges at the boxes, not inside them', () => {
    const layout = layoutMachine(machine);
    const box = (s: string) => layout.nodes.find((n) => n.state === s)!;
    for (const e of layout.edges.filter((x) => x.kind === 'straight')) {
      const [x0, y0, x1, y1] = e.path.match(/-?\d+(\.\d+)?/g)!.map(Number) as [number, number, number, number];
      const from = box(e.from!);
      const to = box(e.to);
      expect(x0 === from.x + from.width || x0 === from.x || y0 === from.y || y0 === from.y + from.height, e.key).toBe(true);
      expect(x1 > to.x && x1 < to.x + to.width && y1 > to.y && y1 < to.y + to.height, e.key).toBe(false);
    }
  });

  it('labels transitions as the actions a person takes, never enum names', () => {
    const layout = layoutMachine(machine);
    const labels = layout.edges.flatMap((e) => e.label.lines).filter((l) => !l.startsWith('if '));
    expect(new Set(labels)).toEqual(new Set(['create', 'verify', 'enable', 'disable', 'update settings']));
    expect(layout.nodes.find((n) => n.state === 'draft')!.loopLines).toEqual([['UPDATE'], ['TEST_MESSAGE']]);
  });

  it('is pure: the same description gives the same layout', () => {
    expect(layoutMachine(describeMachine())).toEqual(layoutMachine(machine));
  });
});

describe('highlight and words', () => {
  it('marks the current state and the transitions its allowed actions take', () => {
    const h = highlightFor(machine, 'verified', allowedActions('verified'));
    expect(h.current).toBe('verified');
    expect([...h.edges].sort()).toEqual(['verified->draft', 'verified->enabled']);
    expect([...h.loopEvents].sort()).toEqual(['TEST_MESSAGE', 'UPDATE', 'VERIFIED']);

    expect([...highlightFor(machine, 'draft', allowedActions('draft')).edges]).toEqual(['draft->verified']);
    expect([...highlightFor(machine, 'enabled', allowedActions('enabled')).edges].sort()).toEqual(['enabled->disabled', 'enabled->draft']);
    expect([...highlightFor(machine, 'disabled', allowedActions('disabled')).edges].sort()).toEqual(['disabled->draft', 'disabled->enabled']);
  });

  it('highlights only what the hub allows, whatever the machine could do', () => {
    // The hub lists what is allowed for this connector; the picture follows the list.
    const h = highlightFor(machine, 'verified', ['verify']);
    expect([...h.edges]).toEqual([]);
    expect([...h.loopEvents]).toEqual(['VERIFIED']);
  });

  it('highlights creation before any connector exists', () => {
    const h = highlightFor(machine, null, []);
    expect(h.current).toBeNull();
    expect([...h.edges]).toEqual(['->draft']);
  });

  it('says where each allowed action leads from every state', () => {
    const said = Object.fromEntries(
      ConnectorStates.map((s) => [s, outcomesFrom(machine, s, allowedActions(s)).map((o) => `${o.action}: ${describeOutcome(s, o)}`)]),
    );
    expect(said).toEqual({
      draft: ['verify: → verified', 'update: stays draft', 'test_message: stays draft'],
      verified: [
        'verify: stays verified',
        'update: → draft if changes credentials, otherwise stays verified',
        'enable: → enabled',
        'test_message: stays verified',
      ],
      enabled: [
        'verify: stays enabled',
        'update: → draft if changes credentials, otherwise stays enabled',
        'disable: → disabled',
        'test_message: stays enabled',
      ],
      disabled: [
        'verify: stays disabled',
        'update: → draft if changes credentials, otherwise stays disabled',
        'enable: → enabled',
        'test_message: stays disabled',
      ],
    });
  });

  it('humanizes guard names', () => {
    expect(humanize('changesCredentials')).toBe('changes credentials');
  });
});
