/**
 * A Prometheus histogram for hot paths (the modelled server's requests, ~500 a virtual second in the 5,000-node
 * hour): a label set is bound once to a cell, and observing into a cell is a bucket search and three additions —
 * prom-client's `Histogram.observe` validates and hashes the labels on every call (~10–30 µs here). The histogram
 * registers itself in prom-client registries as a metric of its own, so prom-client writes its exposition (the
 * same lines its `Histogram` writes: cumulative `_bucket{le}`, `+Inf`, `_sum`, `_count` per label set).
 */
import type { Registry } from "prom-client"

/** One label set's counts. */
export interface HistogramCell {
  readonly labels: Readonly<Record<string, string>>
  /** Per bucket (the last: above every bound), not cumulative. */
  readonly counts: Float64Array
  sum: number
  count: number
}

const none: Record<string, string> = {}

export class BoundHistogram {
  readonly type = "histogram"
  readonly aggregator = "sum"
  readonly name: string
  readonly help: string
  private readonly buckets: ReadonlyArray<number>
  private readonly cells: Array<HistogramCell>
  /** Each bucket's `le` label, `+Inf` last: made once. */
  private readonly le: ReadonlyArray<Record<string, string | number>>

  constructor(config: { readonly name: string; readonly help: string; readonly buckets: ReadonlyArray<number>; readonly registers: ReadonlyArray<Registry> }, cells: Array<HistogramCell> = []) {
    this.name = config.name
    this.help = config.help
    this.buckets = [...config.buckets].sort((a, b) => a - b)
    this.le = [...this.buckets.map((b) => ({ le: b })), { le: "+Inf" }]
    this.cells = cells
    for (const registry of config.registers) registry.registerMetric(this as never)
  }

  /**
   * A histogram of the same buckets and cells under another name: what is observed into this one is exposed by
   * both, for a deprecated twin upstream observes with the same value (`apiserver_request_slo_duration_seconds`
   * beside `_sli_`, `endpoints/metrics/metrics.go`) — one observation instead of two. Its cells are this one's.
   */
  twin(config: { readonly name: string; readonly help: string; readonly registers: ReadonlyArray<Registry> }): BoundHistogram {
    return new BoundHistogram({ ...config, buckets: this.buckets }, this.cells)
  }

  /** The cell of `labels`, exposed (with zero counts) from the next scrape on. */
  cell(labels: Readonly<Record<string, string>>): HistogramCell {
    const cell = { labels, counts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 }
    this.cells.push(cell)
    return cell
  }

  /** The bucket bounds, ascending (`+Inf` implied after the last). */
  get bounds(): ReadonlyArray<number> {
    return this.buckets
  }

  /** The cells in the order bound: what `get()` writes, for a writer that formats them itself (`OpenMetricsFile.ts`). */
  get boundCells(): ReadonlyArray<HistogramCell> {
    return this.cells
  }

  observe(cell: HistogramCell, value: number): void {
    const b = this.buckets
    // the first bound ≥ value (Prometheus' buckets are upper-inclusive), searched from the smallest: the modelled
    // latencies fall in the first few buckets, where a scan ends sooner than a binary search's branches
    let i = 0
    while (i < b.length && b[i]! < value) i++
    cell.counts[i]!++
    cell.sum += value
    cell.count++
  }

  /**
   * prom-client's `Metric.get`: the values its registry formats. As prom-client's `Histogram` gives them: a cell's
   * labels shared by its lines (`sharedLabels`, formatted once per label set), `le` each bucket's own.
   */
  async get() {
    const values: Array<{ labels: Record<string, string | number>; sharedLabels: Readonly<Record<string, string>>; value: number; metricName: string }> = []
    const bucket = `${this.name}_bucket`
    const sum = `${this.name}_sum`
    const count = `${this.name}_count`
    const le = this.le
    for (const cell of this.cells) {
      let cumulative = 0
      for (let i = 0; i < this.buckets.length; i++) {
        cumulative += cell.counts[i]!
        values.push({ labels: le[i]!, sharedLabels: cell.labels, value: cumulative, metricName: bucket })
      }
      values.push({ labels: le[this.buckets.length]!, sharedLabels: cell.labels, value: cell.count, metricName: bucket })
      values.push({ labels: none, sharedLabels: cell.labels, value: cell.sum, metricName: sum })
      values.push({ labels: none, sharedLabels: cell.labels, value: cell.count, metricName: count })
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }
}
