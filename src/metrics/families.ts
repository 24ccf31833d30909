// Metric families with fixed label sets. Every label value comes from a list declared with the
// family (roles, frame types, close codes, route patterns); anything else is counted as `other`, so
// no user input or id can ever create a time series. A child is bound once per label values and
// kept: the hot path looks one up in a Map and adds to a plain number (a prom-client labelled child
// costs about 100 ns per increment here, the plain number about 1); the numbers are handed to
// prom-client when it collects, at scrape time. Histograms (observed per batch or per request) use
// prom-client directly. With metrics disabled the same families are no-ops, so instrumented code
// never checks a flag.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The value a label takes when it is given one outside its declared set. */
export const OTHER = 'other';

/** Label name → the values it may take (a set may still grow while the hub starts: route patterns). */
export type LabelSets<L extends string> = { readonly [K in L]: readonly string[] | ReadonlySet<string> };

export interface CounterChild {
  inc(value?: number): void;
}
export interface GaugeChild {
  inc(value?: number): void;
  dec(value?: number): void;
  set(value: number): void;
}
export interface HistogramChild {
  observe(value: number): void;
}

/** A family: one child per combination of declared label values. */
export interface Family<L extends string, C> {
  /** The child for these label values (bound once; values outside the declared sets read as `other`). */
  labels(values: { readonly [K in L]: string | number }): C;
}

interface Base<L extends string> {
  /** Must start with `hub_` and end as Prometheus conventions want (`_total` for counters, a unit for the rest). */
  name: string;
  help: string;
  labels?: LabelSets<L>;
}
export type CounterOptions<L extends string> = Base<L>;
export interface GaugeOptions<L extends string> extends Base<L> {
  /** Called at every scrape, to set figures that are cheaper to read then than to track (queue depth). */
  collect?: () => void;
}
export interface HistogramOptions<L extends string> extends Base<L> {
  buckets: readonly number[];
}
type Unlabelled<O> = Omit<O, 'labels'> & { labels?: undefined };
type Labelled<O> = O & { labels: object };

/**
 * What a component (the socket edge, the pipeline, Butler, the connector) uses to declare its own
 * metrics on the hub's registry. Created once by `createMetrics`, passed in where needed. A family
 * without labels is its own child.
 */
export interface MetricsFactory {
  readonly enabled: boolean;
  counter(options: Unlabelled<CounterOptions<never>>): CounterChild;
  counter<L extends string>(options: Labelled<CounterOptions<L>>): Family<L, CounterChild>;
  gauge(options: Unlabelled<GaugeOptions<never>>): GaugeChild;
  gauge<L extends string>(options: Labelled<GaugeOptions<L>>): Family<L, GaugeChild>;
  histogram(options: Unlabelled<HistogramOptions<never>>): HistogramChild;
  histogram<L extends string>(options: Labelled<HistogramOptions<L>>): Family<L, HistogramChild>;
}

const NAME = /^hub_[a-z][a-z0-9_]*$/;
const NOOP = { inc() {}, dec() {}, set() {}, observe() {} };

function keyOf(names: readonly string[], values: Readonly<Record<string, string | number>>): string {
  // One label (the common case) needs no joined key.
  if (names.length === 1) return String(values[names[0]!]);
  return names.map((n) => String(values[n])).join('\u0000');
}

/** Children are made on first use and kept; a value outside its label's set is counted as `other`. */
function bind<L extends string, C>(sets: LabelSets<L>, childOf: (labels: Record<L, string>) => C): Family<L, C> {
  const names = Object.keys(sets) as L[];
  const allowed = names.map((n): ReadonlySet<string> => {
    const values = sets[n];
    return Array.isArray(values) ? new Set<string>(values) : (values as ReadonlySet<string>);
  });
  const children = new Map<string, C>();
  return {
    labels(values) {
      const key = keyOf(names, values);
      let child = children.get(key);
      if (child) return child;
      const clamped = {} as Record<L, string>;
      names.forEach((n, i) => (clamped[n] = allowed[i]!.has(String(values[n])) ? String(values[n]) : OTHER));
      const clampedKey = keyOf(names, clamped);
      child = children.get(clampedKey) ?? childOf(clamped);
      children.set(clampedKey, child);
      // Remember the raw key only for allowed values, so junk values cannot grow the map.
      if (clampedKey === key) children.set(key, child);
      return child;
    },
  };
}

/**
 * The children of a one-label family by value, for hot paths: `of(value)` is one Map lookup, with
 * no object built per call; values outside the set fall back to the `other` child.
 */
export function childrenByValue<C>(family: Family<string, C>, label: string, values: readonly string[]): (value: string) => C {
  const children = new Map<string, C>();
  for (const value of values) children.set(value, family.labels({ [label]: value }));
  const other = family.labels({ [label]: OTHER });
  return (value) => children.get(value) ?? other;
}

function check(name: string, registry: Registry): void {
  if (!NAME.test(name)) throw new Error(`metric ${name} must be snake_case and start with hub_`);
  if (registry.getSingleMetric(name)) throw new Error(`metric ${name} is declared twice`);
}

/** A child that only adds to a number; its family reports the numbers when prom-client collects. */
class Tally implements CounterChild, GaugeChild {
  value = 0;
  inc(value = 1): void {
    this.value += value;
  }
  dec(value = 1): void {
    this.value -= value;
  }
  set(value: number): void {
    this.value = value;
  }
}

/** Tallies by label values, and the function that reports them all. */
function tallies(sets: LabelSets<string> | undefined) {
  const all: Array<[Record<string, string>, Tally]> = [];
  const make = (labels: Record<string, string>) => {
    const tally = new Tally();
    all.push([labels, tally]);
    return tally;
  };
  return { family: sets ? bind(sets, make) : make({}), all };
}

export function createFactory(registry: Registry): MetricsFactory {
  const common = (options: Base<string>) => {
    check(options.name, registry);
    return { name: options.name, help: options.help, labelNames: Object.keys(options.labels ?? {}), registers: [registry] };
  };
  // The overloads are checked at the interface; one implementation serves both forms.
  const factory = {
    enabled: true,
    counter: (options: CounterOptions<string>) => {
      const { family, all } = tallies(options.labels);
      const counter: Counter = new Counter({
        ...common(options),
        collect: () => {
          counter.reset();
          for (const [labels, tally] of all) counter.inc(labels, tally.value);
        },
      });
      return family;
    },
    gauge: (options: GaugeOptions<string>) => {
      const { family, all } = tallies(options.labels);
      const gauge: Gauge = new Gauge({
        ...common(options),
        collect: () => {
          options.collect?.();
          for (const [labels, tally] of all) gauge.set(labels, tally.value);
        },
      });
      return family;
    },
    histogram: (options: HistogramOptions<string>) => {
      const histogram = new Histogram({ ...common(options), buckets: [...options.buckets] });
      return options.labels ? bind(options.labels, (labels) => histogram.labels(labels)) : histogram;
    },
  };
  return factory as unknown as MetricsFactory;
}

/** Families that record nothing (METRICS_ENABLED=false). */
const noop = (options: Base<string>) => (options.labels ? { labels: () => NOOP } : NOOP);
export const disabledFactory = { enabled: false, counter: noop, gauge: noop, histogram: noop } as unknown as MetricsFactory;
