/**
 * Counters, gauges and histograms for the per-request metrics, with prom-client's constructor options and call
 * shapes (`inc(labels)`, `observe(labels, v)`, `collect()`) and its metric protocol (`get()`), so prom-client's
 * `Registry` writes them in the text format and OpenMetrics beside its own (the process metrics). Why not
 * prom-client's own: its `Counter.inc` with labels costs ~13 µs and a histogram `observe` ~5 µs (label validation and
 * hashing per call). Hot paths go further: `bind(labels)` finds a series once (its label values joined), and the
 * caller keeps it, so a request adds to a number and a histogram's bucket with no label work at all (issue 38,
 * bench/metricsOverhead.ts). A series exists, and is exposed, from its first `bind`.
 */
import type { Registry } from "prom-client"

type Labels<L extends string> = Partial<Record<L, string | number>>

interface Options<L extends string> {
  readonly name: string
  readonly help: string
  readonly labelNames?: ReadonlyArray<L>
  readonly registers?: ReadonlyArray<Registry>
}

/** One exposed sample, as prom-client's registry reads it. */
interface Sample {
  readonly labels: Record<string, string | number>
  readonly value: number
  readonly metricName?: string
}

abstract class Family<L extends string, S> {
  name: string
  readonly help: string
  readonly labelNames: ReadonlyArray<L>
  abstract readonly type: "counter" | "gauge" | "histogram"
  readonly aggregator = "sum"
  protected readonly series = new Map<string, { readonly labels: Record<string, string | number>; readonly state: S }>()

  constructor(o: Options<L>) {
    this.name = o.name
    this.help = o.help
    this.labelNames = o.labelNames ?? []
    for (const r of o.registers ?? []) r.registerMetric(this as never)
  }

  protected abstract fresh(): S

  /** The series of `labels` (absent names are "", names not the family's are ignored), made on first use. */
  bind(labels?: Labels<L>): S {
    const names = this.labelNames
    let key = ""
    for (let i = 0; i < names.length; i++) key += `${labels?.[names[i]!] ?? ""}\u0000`
    let s = this.series.get(key)
    if (s === undefined) {
      const copy: Record<string, string | number> = {}
      for (const n of names) copy[n] = labels?.[n] ?? ""
      this.series.set(key, (s = { labels: copy, state: this.fresh() }))
    }
    return s.state
  }

  reset(): void {
    this.series.clear()
  }
}

/** A counter's or gauge's series: the number itself. */
export class Value {
  value = 0
  inc(by = 1): void {
    this.value += by
  }
  dec(by = 1): void {
    this.value -= by
  }
}

export class Counter<L extends string = string> extends Family<L, Value> {
  readonly type = "counter"

  protected fresh() {
    return new Value()
  }

  inc(labels?: Labels<L>, value = 1): void {
    this.bind(labels).value += value
  }

  get(): { name: string; help: string; type: "counter"; values: ReadonlyArray<Sample>; aggregator: string } {
    return { name: this.name, help: this.help, type: this.type, values: [...this.series.values()].map((s) => ({ labels: s.labels, value: s.state.value })), aggregator: this.aggregator }
  }
}

export class Gauge<L extends string = string> extends Family<L, Value> {
  readonly type = "gauge"
  private readonly collector: ((this: Gauge<L>) => void) | undefined

  constructor(o: Options<L> & { readonly collect?: (this: Gauge<L>) => void }) {
    super(o)
    this.collector = o.collect
  }

  protected fresh() {
    return new Value()
  }

  inc(labels?: Labels<L>, value = 1): void {
    this.bind(labels).value += value
  }

  dec(labels?: Labels<L>, value = 1): void {
    this.bind(labels).value -= value
  }

  set(labels: Labels<L>, value: number): void {
    this.bind(labels).value = value
  }

  get(): { name: string; help: string; type: "gauge"; values: ReadonlyArray<Sample>; aggregator: string } {
    this.collector?.call(this)
    return { name: this.name, help: this.help, type: this.type, values: [...this.series.values()].map((s) => ({ labels: s.labels, value: s.state.value })), aggregator: this.aggregator }
  }
}

/** A histogram's series: per bucket counts (not cumulative; those above the last bound only in `count`), sum, count. */
export class HistogramSeries {
  readonly counts: Float64Array
  sum = 0
  count = 0

  constructor(private readonly bounds: Float64Array) {
    this.counts = new Float64Array(bounds.length)
  }

  /** The first bound ≥ `value` (upper-inclusive, as Prometheus): scanned from the smallest, where a request's times fall. */
  observe(value: number): void {
    const bounds = this.bounds
    for (let i = 0; i < bounds.length; i++)
      if (value <= bounds[i]!) {
        this.counts[i]!++
        break
      }
    this.sum += value
    this.count++
  }
}

export class Histogram<L extends string = string> extends Family<L, HistogramSeries> {
  readonly type = "histogram"
  readonly upperBounds: ReadonlyArray<number>
  private readonly bounds: Float64Array

  constructor(o: Options<L> & { readonly buckets: ReadonlyArray<number> }) {
    super(o)
    this.upperBounds = [...o.buckets].sort((a, b) => a - b)
    this.bounds = Float64Array.from(this.upperBounds)
  }

  protected fresh() {
    return new HistogramSeries(this.bounds)
  }

  observe(labels: Labels<L>, value: number): void {
    this.bind(labels).observe(value)
  }

  get(): { name: string; help: string; type: "histogram"; values: ReadonlyArray<Sample>; aggregator: string } {
    const values: Array<Sample> = []
    for (const { labels, state } of this.series.values()) {
      let cumulative = 0
      this.upperBounds.forEach((le, i) => {
        cumulative += state.counts[i]!
        values.push({ labels: { ...labels, le }, value: cumulative, metricName: `${this.name}_bucket` })
      })
      values.push({ labels: { ...labels, le: "+Inf" }, value: state.count, metricName: `${this.name}_bucket` })
      values.push({ labels, value: state.sum, metricName: `${this.name}_sum` })
      values.push({ labels, value: state.count, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }
}
