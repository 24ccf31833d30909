// The connector's lifecycle drawn from the hub's own description of its machine (GET …/machine), so
// the picture cannot drift from the code. Pure: states and transitions in, boxes, paths and label
// positions out; the component only paints them. States sit in rank order (distance from the
// initial state) on a grid filled row by row, every other row right to left, so a chain stays a
// chain: one row on a laptop, two columns on a phone. Neighbours are joined by straight lines (a
// pair going both ways drawn side by side); farther states in the same row by arcs routed under
// (back) or over (forward) the row. Transitions that stay in their state are listed inside it.
import type { ConnectorAction } from '@hub/client';

export interface MachineInput {
  initial: string;
  states: readonly string[];
  transitions: ReadonlyArray<{ from: string | null; event: string; to: string; guard?: string }>;
}

export interface Point {
  x: number;
  y: number;
}

export interface NodeBox {
  state: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** Events that keep the connector in this state, drawn as one compact loop with a list. */
  loops: string[];
  /** The loop list wrapped to fit the box. */
  loopLines: string[][];
}

export interface EdgeLabel {
  x: number;
  y: number;
  anchor: 'start' | 'middle' | 'end';
  lines: string[];
}

export interface DiagramEdge {
  /** `from->to`; `from` is empty for creation. */
  key: string;
  from: string | null;
  to: string;
  events: string[];
  kind: 'create' | 'straight' | 'arc';
  path: string;
  label: EdgeLabel;
}

export interface DiagramLayout {
  viewBox: { x: number; y: number; width: number; height: number };
  /** In compact layouts guards are marked on the labels and explained here. */
  notes: Array<{ mark: string; text: string }>;
  /** An estimate of a label character's width (the bounds and the overlap check use it). */
  charWidth: number;
  /** Line spacing of labels and loop lists. */
  lineHeight: number;
  /** Baseline of a box's state name, then of its first loop line, from the box's top. */
  nameBaseline: number;
  listBaseline: number;
  nodes: NodeBox[];
  edges: DiagramEdge[];
  /** Creation's starting dot. */
  start: Point & { r: number };
}

export interface LayoutOptions {
  /** States per row; defaults to all in one row. */
  columns?: number;
  /** For a narrow screen: shorter labels (guards as footnotes), tighter gaps, room for larger type. */
  compact?: boolean;
}

interface Metrics {
  gapX: number;
  gapY: number;
  lineH: number;
  /** An estimate of a label character's width, for the bounds (monospace labels). */
  charW: number;
  loopChars: number;
}

const REGULAR: Metrics = { gapX: 150, gapY: 120, lineH: 14, charW: 6.7, loopChars: 21 };
/** Matches the larger type the page's CSS gives a compact diagram. */
const COMPACT: Metrics = { gapX: 96, gapY: 104, lineH: 16, charW: 7.9, loopChars: 18 };
const GUARD_MARKS = ['*', '†', '‡', '§'];

const NODE_W = 150;
const NAME_H = 30;
const ARC_STEP = 44;
const PAIR_OFFSET = 7;
const LABEL_GAP = 8;
const MARGIN = 12;

/** `changesCredentials` → `changes credentials`. */
export function humanize(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

/** What a person does to cause each event, as the labels say it ("verify", not VERIFIED). */
export const EVENT_LABELS: Record<string, string> = {
  CREATE: 'create',
  VERIFIED: 'verify',
  UPDATE: 'update settings',
  ENABLE: 'enable',
  DISABLE: 'disable',
  TEST_MESSAGE: 'send test message',
};

/** An event as an action: its label, or the enum name in lower case words. */
export function actionLabel(event: string): string {
  return EVENT_LABELS[event] ?? event.toLowerCase().replace(/_/g, ' ');
}

export function transitionLabel(event: string, guard?: string): string[] {
  const action = actionLabel(event);
  return guard ? [action, `if ${humanize(guard)}`] : [action];
}

/** Distance of every state from the initial one over the transitions; unreachable states come last. */
export function ranks(machine: MachineInput): Map<string, number> {
  const rank = new Map<string, number>([[machine.initial, 0]]);
  const queue = [machine.initial];
  while (queue.length > 0) {
    const from = queue.shift()!;
    for (const t of machine.transitions) {
      if (t.from !== from || rank.has(t.to)) continue;
      rank.set(t.to, rank.get(from)! + 1);
      queue.push(t.to);
    }
  }
  let last = Math.max(0, ...rank.values());
  for (const s of machine.states) if (!rank.has(s)) rank.set(s, ++last);
  return rank;
}

/** Events in lines of at most `max` characters as they read (their action labels, ` · ` between). */
function wrap(words: string[], max: number): string[][] {
  const lines: string[][] = [];
  let line: string[] = [];
  let length = 0;
  for (const w of words) {
    const width = actionLabel(w).length;
    if (line.length > 0 && length + 3 + width > max) {
      lines.push(line);
      line = [];
      length = 0;
    }
    length += (line.length > 0 ? 3 : 0) + width;
    line.push(w);
  }
  if (line.length > 0) lines.push(line);
  return lines;
}

const center = (n: NodeBox): Point => ({ x: n.x + n.width / 2, y: n.y + n.height / 2 });
const round = (v: number) => Math.round(v * 10) / 10;
const fmt = (p: Point) => `${round(p.x)} ${round(p.y)}`;

/** Where a ray from `p` (inside `box`, or on its centre line) along `d` leaves the box. */
function exitPoint(box: NodeBox, p: Point, d: Point): Point {
  const c = center(box);
  const tx = d.x === 0 ? Infinity : (Math.sign(d.x) * (box.width / 2) - (p.x - c.x)) / d.x;
  const ty = d.y === 0 ? Infinity : (Math.sign(d.y) * (box.height / 2) - (p.y - c.y)) / d.y;
  const t = Math.min(tx, ty);
  return { x: p.x + d.x * t, y: p.y + d.y * t };
}

interface Cell {
  row: number;
  col: number;
}

export function layoutMachine(machine: MachineInput, options: LayoutOptions = {}): DiagramLayout {
  const rank = ranks(machine);
  const order = [...machine.states].sort((a, b) => rank.get(a)! - rank.get(b)! || machine.states.indexOf(a) - machine.states.indexOf(b));
  const columns = Math.max(1, Math.min(options.columns ?? order.length, order.length));
  const metrics = options.compact ? COMPACT : REGULAR;
  const notes: DiagramLayout['notes'] = [];
  const label = (event: string, guard?: string): string[] => {
    if (!guard || !options.compact) return transitionLabel(event, guard);
    const text = `if ${humanize(guard)}`;
    let note = notes.find((n) => n.text === text);
    if (!note) notes.push((note = { mark: GUARD_MARKS[notes.length] ?? `(${notes.length + 1})`, text }));
    return [`${actionLabel(event)}${note.mark}`];
  };

  // Transitions grouped by (from, to); those that stay put become the state's loop list.
  const loops = new Map<string, string[]>(order.map((s) => [s, []]));
  const groups = new Map<string, { from: string | null; to: string; labels: string[][]; events: string[] }>();
  for (const t of machine.transitions) {
    if (t.from === t.to) {
      const list = loops.get(t.to);
      if (list && !list.includes(t.event)) list.push(t.event);
      continue;
    }
    const key = `${t.from ?? ''}->${t.to}`;
    const group = groups.get(key) ?? { from: t.from, to: t.to, labels: [], events: [] };
    group.labels.push(label(t.event, t.guard));
    if (!group.events.includes(t.event)) group.events.push(t.event);
    groups.set(key, group);
  }

  const loopLines = new Map(order.map((s) => [s, wrap(loops.get(s)!, metrics.loopChars)]));
  const height = NAME_H + 10 + metrics.lineH * Math.max(0, ...[...loopLines.values()].map((l) => l.length));
  const cells = new Map<string, Cell>();
  const nodes: NodeBox[] = order.map((state, i) => {
    const row = Math.floor(i / columns);
    const col = row % 2 === 0 ? i % columns : columns - 1 - (i % columns);
    cells.set(state, { row, col });
    return {
      state,
      x: col * (NODE_W + metrics.gapX),
      y: row * (height + metrics.gapY),
      width: NODE_W,
      height,
      loops: loops.get(state)!,
      loopLines: loopLines.get(state)!,
    };
  });
  const byState = new Map(nodes.map((n) => [n.state, n]));
  const mid: Point = {
    x: (Math.min(...nodes.map((n) => n.x)) + Math.max(...nodes.map((n) => n.x + n.width))) / 2,
    y: (Math.min(...nodes.map((n) => n.y)) + Math.max(...nodes.map((n) => n.y + n.height))) / 2,
  };

  const edges: DiagramEdge[] = [];
  const arcs: Array<{ key: string; from: NodeBox; to: NodeBox; below: boolean; span: number; labels: string[][]; events: string[] }> = [];

  for (const [key, g] of groups) {
    const to = byState.get(g.to);
    if (!to) continue;
    const lines = g.labels.flat();
    if (g.from === null) continue; // creation is drawn last, from the start dot
    const from = byState.get(g.from);
    if (!from) continue;
    const a = cells.get(g.from)!;
    const b = cells.get(g.to)!;
    const neighbours = Math.abs(a.row - b.row) <= 1 && Math.abs(a.col - b.col) <= 1;
    if (!neighbours && a.row === b.row) {
      const back = order.indexOf(g.to) < order.indexOf(g.from);
      arcs.push({ key, from, to, below: back, span: Math.abs(a.col - b.col), labels: g.labels, events: g.events });
      continue;
    }
    edges.push(straightEdge(key, g.from, g.to, from, to, groups.has(`${g.to}->${g.from}`), lines, g.events, mid, metrics));
  }
  edges.push(...routeArcs(arcs, metrics));

  // Creation: a dot left of the initial state, an arrow into it.
  const initial = byState.get(machine.initial) ?? nodes[0]!;
  const create = groups.get(`->${initial.state}`);
  const start = { x: initial.x - 56, y: initial.y + NAME_H / 2 + 2, r: 6 };
  const createLines = create ? create.labels.flat() : [];
  edges.unshift({
    key: `->${initial.state}`,
    from: null,
    to: initial.state,
    events: create?.events ?? [],
    kind: 'create',
    path: `M ${fmt({ x: start.x + start.r, y: start.y })} L ${fmt({ x: initial.x - 2, y: start.y })}`,
    label: { x: start.x + (initial.x - start.x) / 2, y: start.y - LABEL_GAP, anchor: 'middle', lines: createLines },
  });

  return {
    viewBox: bounds(nodes, edges, start, metrics),
    notes,
    charWidth: metrics.charW,
    lineHeight: metrics.lineH,
    nameBaseline: 21,
    listBaseline: NAME_H + metrics.lineH,
    nodes,
    edges,
    start,
  };
}

function straightEdge(
  key: string,
  fromState: string,
  toState: string,
  from: NodeBox,
  to: NodeBox,
  paired: boolean,
  lines: string[],
  events: string[],
  mid: Point,
  metrics: Metrics,
): DiagramEdge {
  const a = center(from);
  const b = center(to);
  const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  const d = { x: (b.x - a.x) / len, y: (b.y - a.y) / len };
  // The left-hand side of the direction of travel (y grows downward), so a pair never overlaps.
  const n = { x: d.y, y: -d.x };
  const offset = paired ? PAIR_OFFSET : 0;
  const p = { x: a.x + n.x * offset, y: a.y + n.y * offset };
  const q = { x: b.x + n.x * offset, y: b.y + n.y * offset };
  const head = exitPoint(from, p, d);
  const end = exitPoint(to, q, { x: -d.x, y: -d.y });
  // Between two boxes of a row the label sits in the gap: its words wrap to the gap's width.
  const text = d.y === 0 ? wrapWords(lines, Math.floor((Math.abs(b.x - a.x) - from.width - 2) / metrics.charW)) : lines;
  // Stop just short of the box, so the arrowhead is not hidden under its border.
  const tail = { x: end.x - d.x * 2, y: end.y - d.y * 2 };
  const m = { x: (head.x + tail.x) / 2, y: (head.y + tail.y) / 2 };
  // A lone edge puts its label on the side away from the middle of the picture, where there is room.
  let side = n;
  if (!paired && (m.x - mid.x) * n.x + (m.y - mid.y) * n.y < 0) side = { x: -n.x, y: -n.y };
  return {
    key,
    from: fromState,
    to: toState,
    events,
    kind: 'straight',
    path: `M ${fmt(head)} L ${fmt(tail)}`,
    label: placeLabel(m, side, text, metrics.lineH),
  };
}

/** Lines broken between words so that none is longer than `max` characters (a longer word stays whole). */
export function wrapWords(lines: readonly string[], max: number): string[] {
  return lines.flatMap((line) => {
    if (line.length <= max) return [line];
    const out: string[] = [];
    for (const word of line.split(' ')) {
      const last = out.length - 1;
      if (last >= 0 && out[last]!.length + 1 + word.length <= max) out[last] += ` ${word}`;
      else out.push(word);
    }
    return out;
  });
}

/** Where a label's text lies (estimated from its characters), in the layout's coordinates. */
export function labelBox(label: EdgeLabel, lineH: number, charW: number): { x: number; y: number; width: number; height: number } {
  const width = Math.max(0, ...label.lines.map((l) => l.length)) * charW;
  const x = label.anchor === 'start' ? label.x : label.anchor === 'end' ? label.x - width : label.x - width / 2;
  const y = label.y - lineH + 2;
  return { x, y, width, height: label.y + (label.lines.length - 1) * lineH + 4 - y };
}

/** A label beside point `m`, pushed out along `side` (a unit vector), anchored so it grows away. */
function placeLabel(m: Point, side: Point, lines: string[], lineH: number): EdgeLabel {
  const horizontalish = Math.abs(side.x) > Math.abs(side.y);
  if (horizontalish) {
    const x = m.x + side.x * LABEL_GAP;
    // Centred vertically on the point.
    const y = m.y - ((lines.length - 1) * lineH) / 2 + 4;
    return { x: round(x), y: round(y), anchor: side.x > 0 ? 'start' : 'end', lines };
  }
  // Above: the last line sits just over the point; below: the first line just under it.
  const y = side.y < 0 ? m.y - LABEL_GAP - (lines.length - 1) * lineH : m.y + LABEL_GAP + lineH - 4;
  return { x: round(m.x + side.x * LABEL_GAP), y: round(y), anchor: 'middle', lines };
}

/**
 * Arcs between distant states of a row: down from one, along, up into the other. Depths are given
 * so that no two arcs on the same side share a level where they overlap, and where several arcs
 * meet one state they are spread along its edge, nested so they never cross.
 */
function routeArcs(
  arcs: Array<{ key: string; from: NodeBox; to: NodeBox; below: boolean; span: number; labels: string[][]; events: string[] }>,
  metrics: Metrics,
): DiagramEdge[] {
  const level = new Map<string, number>();
  const sorted = [...arcs].sort((a, b) => a.span - b.span);
  for (const arc of sorted) {
    const [lo, hi] = [Math.min(arc.from.x, arc.to.x), Math.max(arc.from.x, arc.to.x)];
    let max = 0;
    for (const other of sorted) {
      const l = level.get(other.key);
      if (l === undefined || other.below !== arc.below) continue;
      const [olo, ohi] = [Math.min(other.from.x, other.to.x), Math.max(other.from.x, other.to.x)];
      if (olo <= hi && lo <= ohi) max = Math.max(max, l);
    }
    level.set(arc.key, max + 1);
  }

  // Attachment points: per state and side, arcs reaching left first (short ones outermost), then arcs reaching right (long ones first).
  const ends = new Map<string, Array<{ key: string; reach: number }>>();
  for (const arc of arcs) {
    for (const [node, other] of [
      [arc.from, arc.to],
      [arc.to, arc.from],
    ] as const) {
      const id = `${node.state}:${arc.below}`;
      const list = ends.get(id) ?? [];
      list.push({ key: `${arc.key}:${node.state}`, reach: other.x - node.x });
      ends.set(id, list);
    }
  }
  const attach = new Map<string, number>();
  for (const list of ends.values()) {
    list.sort((a, b) => {
      if (Math.sign(a.reach) !== Math.sign(b.reach)) return a.reach - b.reach;
      return a.reach < 0 ? Math.abs(a.reach) - Math.abs(b.reach) : Math.abs(b.reach) - Math.abs(a.reach);
    });
    const spacing = 18;
    list.forEach((e, i) => attach.set(e.key, (i - (list.length - 1) / 2) * spacing));
  }

  return arcs.map((arc) => {
    const dir = arc.below ? 1 : -1;
    const edgeY = (n: NodeBox) => (arc.below ? n.y + n.height : n.y);
    const sx = arc.from.x + arc.from.width / 2 + attach.get(`${arc.key}:${arc.from.state}`)!;
    const tx = arc.to.x + arc.to.width / 2 + attach.get(`${arc.key}:${arc.to.state}`)!;
    const y0 = edgeY(arc.from);
    const y1 = edgeY(arc.to);
    const depth = (arc.below ? Math.max(y0, y1) : Math.min(y0, y1)) + dir * ARC_STEP * level.get(arc.key)!;
    const r = 10;
    const hx = Math.sign(tx - sx);
    const path = [
      `M ${fmt({ x: sx, y: y0 })}`,
      `L ${fmt({ x: sx, y: depth - dir * r })}`,
      `Q ${fmt({ x: sx, y: depth })} ${fmt({ x: sx + hx * r, y: depth })}`,
      `L ${fmt({ x: tx - hx * r, y: depth })}`,
      `Q ${fmt({ x: tx, y: depth })} ${fmt({ x: tx, y: depth - dir * r })}`,
      `L ${fmt({ x: tx, y: y1 + dir * 2 })}`,
    ].join(' ');
    const lines = arc.labels.flat();
    const label = placeLabel({ x: (sx + tx) / 2, y: depth }, { x: 0, y: dir }, lines, metrics.lineH);
    return { key: arc.key, from: arc.from.state, to: arc.to.state, events: arc.events, kind: 'arc' as const, path, label };
  });
}

function bounds(nodes: NodeBox[], edges: DiagramEdge[], start: Point & { r: number }, metrics: Metrics) {
  let minX = start.x - start.r;
  let maxX = start.x + start.r;
  let minY = start.y - start.r;
  let maxY = start.y + start.r;
  const grow = (x0: number, y0: number, x1: number, y1: number) => {
    minX = Math.min(minX, x0);
    minY = Math.min(minY, y0);
    maxX = Math.max(maxX, x1);
    maxY = Math.max(maxY, y1);
  };
  // Loops are drawn over each box's top edge.
  for (const n of nodes) grow(n.x, n.y - (n.loops.length > 0 ? 16 : 0), n.x + n.width, n.y + n.height);
  for (const e of edges) {
    const nums = e.path.match(/-?\d+(\.\d+)?/g)!.map(Number);
    for (let i = 0; i + 1 < nums.length; i += 2) grow(nums[i]!, nums[i + 1]!, nums[i]!, nums[i + 1]!);
    const box = labelBox(e.label, metrics.lineH, metrics.charW);
    grow(box.x, box.y, box.x + box.width, box.y + box.height);
  }
  return { x: round(minX - MARGIN), y: round(minY - MARGIN), width: round(maxX - minX + 2 * MARGIN), height: round(maxY - minY + 2 * MARGIN) };
}

// ---- what is possible from a state -------------------------------------------------------------

/** The event each dashboard action sends to the machine. */
export const ACTION_EVENTS: Record<ConnectorAction, string> = {
  verify: 'VERIFIED',
  update: 'UPDATE',
  enable: 'ENABLE',
  disable: 'DISABLE',
  test_message: 'TEST_MESSAGE',
};

export interface Highlight {
  /** The state to mark as current, or null before a connector exists. */
  current: string | null;
  /** Keys of the edges an allowed action can take from the current state. */
  edges: Set<string>;
  /** Events of the current state's loop list that an allowed action sends. */
  loopEvents: Set<string>;
}

/** What to highlight: the current state, and the transitions its allowed actions can take. */
export function highlightFor(machine: MachineInput, current: string | null, allowed: readonly string[]): Highlight {
  const events = new Set(allowed.map((a) => ACTION_EVENTS[a as ConnectorAction] ?? a.toUpperCase()));
  const edges = new Set<string>();
  const loopEvents = new Set<string>();
  for (const t of machine.transitions) {
    if (current === null) {
      if (t.from === null) edges.add(`->${t.to}`);
      continue;
    }
    if (t.from !== current || !events.has(t.event)) continue;
    if (t.to === current) loopEvents.add(t.event);
    else edges.add(`${t.from}->${t.to}`);
  }
  return { current, edges, loopEvents };
}

export interface ActionOutcome {
  action: string;
  event: string;
  /** Where the action leads: the state, with the guard that picks it when there are several. */
  outcomes: Array<{ to: string; guard?: string }>;
}

/** The allowed actions from `current` and where each leads, for the text beside the picture. */
export function outcomesFrom(machine: MachineInput, current: string, allowed: readonly string[]): ActionOutcome[] {
  return allowed.map((action) => {
    const event = ACTION_EVENTS[action as ConnectorAction] ?? action.toUpperCase();
    const outcomes = machine.transitions
      .filter((t) => t.from === current && t.event === event)
      .map((t) => (t.guard ? { to: t.to, guard: t.guard } : { to: t.to }));
    return { action, event, outcomes };
  });
}

/** "stays draft" / "→ verified" / "→ draft if changes credentials, otherwise stays enabled". */
export function describeOutcome(current: string, o: ActionOutcome): string {
  const parts = [...o.outcomes]
    .sort((a, b) => Number(!a.guard) - Number(!b.guard))
    .map((t) => {
      const where = t.to === current ? `stays ${current}` : `→ ${t.to}`;
      return t.guard ? `${where} if ${humanize(t.guard)}` : o.outcomes.length > 1 ? `otherwise ${where}` : where;
    });
  return parts.length > 0 ? parts.join(', ') : 'not possible';
}
