/**
 * A small Prometheus registry: counters, gauges and histograms with labels, rendered in the text
 * exposition format (version 0.0.4) that `GET /metrics` serves.
 *
 * Each label combination is a series object; hot paths keep the series they use (`labels()`)
 * instead of looking it up per update.
 */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type Labels<L extends string> = { readonly [K in L]: string };

interface MetricOptions<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly L[];
}

export interface HistogramOptions<L extends string> extends MetricOptions<L> {
  /** Upper bounds, ascending; +Inf is implied. */
  readonly buckets: readonly number[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

interface Metric {
  readonly name: string;
  render(): string;
}

/** The series of one metric, keyed by their label values. */
abstract class Family<L extends string, S> implements Metric {
  readonly #series = new Map<string, { readonly labelText: string; readonly series: S }>();
  readonly #labelNames: readonly L[];

  protected constructor(
    readonly name: string,
    private readonly help: string,
    private readonly type: string,
    labelNames: readonly L[],
    private readonly newSeries: () => S,
  ) {
    if (!METRIC_NAME.test(name)) throw new Error(`invalid metric name ${name}`);
    for (const label of labelNames) {
      if (!LABEL_NAME.test(label) || label.startsWith('__')) throw new Error(`${name}: invalid label name ${label}`);
    }
    this.#labelNames = labelNames;
  }

  /** The series for these label values, created at zero on first use. */
  labels(labels: Labels<L>): S {
    const values = this.#labelNames.map((name) => {
      const value = labels[name];
      if (typeof value !== 'string') throw new Error(`${this.name}: label ${name} missing`);
      return value;
    });
    if (Object.keys(labels).length !== values.length) throw new Error(`${this.name}: unexpected labels ${Object.keys(labels).join(',')}`);
    const key = values.join('\u0000');
    let entry = this.#series.get(key);
    if (entry === undefined) {
      const labelText = this.#labelNames.map((name, i) => `${name}="${escapeLabelValue(values[i])}"`).join(',');
      entry = { labelText, series: this.newSeries() };
      this.#series.set(key, entry);
    }
    return entry.series;
  }

  /** Drops the series with these label values (a peer that disconnected). */
  remove(labels: Labels<L>): void {
    this.#series.delete(this.#labelNames.map((name) => labels[name]).join('\u0000'));
  }

  render(): string {
    let text = `# HELP ${this.name} ${escapeHelp(this.help)}\n# TYPE ${this.name} ${this.type}\n`;
    // A metric without labels has exactly one series; show it at zero before its first update.
    if (this.#labelNames.length === 0 && this.#series.size === 0) this.labels({} as Labels<L>);
    for (const { labelText, series } of this.#series.values()) text += this.renderSeries(labelText, series);
    return text;
  }

  protected abstract renderSeries(labelText: string, series: S): string;
}

/** Counters and gauges: one number per series. */
abstract class ValueFamily<L extends string, S extends { readonly value: number }> extends Family<L, S> {
  protected renderSeries(labelText: string, series: S): string {
    return sample(this.name, labelText, series.value);
  }
}

export class CounterSeries {
  value = 0;
  inc(by = 1): void {
    if (!(by >= 0)) throw new Error('a counter only goes up');
    this.value += by;
  }
}

export class GaugeSeries {
  value = 0;
  set(value: number): void {
    this.value = value;
  }
  inc(by = 1): void {
    this.value += by;
  }
  dec(by = 1): void {
    this.value -= by;
  }
}

export class HistogramSeries {
  /** Per bucket (not cumulative) counts; the last slot is +Inf. */
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }
  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > this.bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

export class Counter<L extends string = never> extends ValueFamily<L, CounterSeries> {
  constructor(options: MetricOptions<L>) {
    super(options.name, options.help, 'counter', options.labelNames ?? [], () => new CounterSeries());
  }
  inc(labels: Labels<L>, by = 1): void {
    this.labels(labels).inc(by);
  }
}

export class Gauge<L extends string = never> extends ValueFamily<L, GaugeSeries> {
  constructor(options: MetricOptions<L>) {
    super(options.name, options.help, 'gauge', options.labelNames ?? [], () => new GaugeSeries());
  }
  set(labels: Labels<L>, value: number): void {
    this.labels(labels).set(value);
  }
}

export class Histogram<L extends string = never> extends Family<L, HistogramSeries> {
  readonly #bounds: readonly number[];
  constructor(options: HistogramOptions<L>) {
    const bounds = [...options.buckets];
    super(options.name, options.help, 'histogram', options.labelNames ?? [], () => new HistogramSeries(bounds));
    if ((options.labelNames ?? []).some((l) => l === 'le')) throw new Error(`${options.name}: "le" is reserved in histograms`);
    if (bounds.length === 0 || bounds.some((b, i) => !Number.isFinite(b) || (i > 0 && b <= bounds[i - 1]))) {
      throw new Error(`${options.name}: buckets must be finite and strictly ascending`);
    }
    this.#bounds = bounds;
  }
  observe(labels: Labels<L>, value: number): void {
    this.labels(labels).observe(value);
  }
  protected renderSeries(labelText: string, series: HistogramSeries): string {
    const sep = labelText === '' ? '' : ',';
    let text = '';
    let cumulative = 0;
    for (let i = 0; i <= this.#bounds.length; i++) {
      cumulative += series.counts[i];
      const le = i < this.#bounds.length ? formatNumber(this.#bounds[i]) : '+Inf';
      text += sample(`${this.name}_bucket`, `${labelText}${sep}le="${le}"`, cumulative);
    }
    return text + sample(`${this.name}_sum`, labelText, series.sum) + sample(`${this.name}_count`, labelText, series.count);
  }
}

export class MetricsRegistry {
  readonly #metrics = new Map<string, Metric>();

  counter<L extends string = never>(options: MetricOptions<L>): Counter<L> {
    return this.#add(new Counter(options));
  }

  gauge<L extends string = never>(options: MetricOptions<L>): Gauge<L> {
    return this.#add(new Gauge(options));
  }

  histogram<L extends string = never>(options: HistogramOptions<L>): Histogram<L> {
    return this.#add(new Histogram(options));
  }

  /** The exposition text of every metric, in registration order. */
  render(): string {
    let text = '';
    for (const metric of this.#metrics.values()) text += metric.render();
    return text;
  }

  #add<M extends Metric>(metric: M): M {
    if (this.#metrics.has(metric.name)) throw new Error(`metric ${metric.name} registered twice`);
    this.#metrics.set(metric.name, metric);
    return metric;
  }
}

function sample(name: string, labelText: string, value: number): string {
  return labelText === '' ? `${name} ${formatNumber(value)}\n` : `${name}{${labelText}} ${formatNumber(value)}\n`;
}

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}
