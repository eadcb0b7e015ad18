/**
 * A run's metrics as one OpenMetrics file with timestamps (`run --metrics-out`, docs/metrics.md), the input of
 * `promtool tsdb create-blocks-from openmetrics`: a prom-client `Registry` scraped at given instants, each sample
 * line written with the instant. OpenMetrics keeps each metric family in one piece (its HELP and TYPE once, then
 * its samples), so the samples of each family are spooled to a file of their own as they are scraped — nothing of
 * the run is kept in memory — and the families are joined, in the order first seen, behind one `# EOF` at the end.
 * The values are prom-client's metrics' (their `get()`), written in prom-client's exposition lines (below); the
 * timestamp is added.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { Registry } from "prom-client"
import { BoundHistogram, type HistogramCell } from "./BoundHistogram.js"

interface Family {
  readonly header: string
  readonly spool: string
  readonly fd: number
  /** A `BoundHistogram`'s lines up to the value, per cell (in its order) and line: formatted once for the run. */
  readonly prefixes: Array<ReadonlyArray<string>>
}

/** One sample as a prom-client metric's `get()` gives it (`sharedLabels`: a label set its histogram's lines share). */
interface Sample {
  readonly value: number
  readonly labels?: Readonly<Record<string, string | number>>
  readonly sharedLabels?: Readonly<Record<string, string | number>>
  readonly metricName?: string
}

/** A metric as the registry holds it: prom-client's own objects (its `name` is what the exposition writes). */
interface RegisteredMetric {
  name: string
  readonly type?: string
  readonly get: () => MetricData | Promise<MetricData>
  readonly getForPromString?: () => MetricData | Promise<MetricData>
}

interface MetricData {
  readonly name: string
  readonly help: string
  readonly type: string
  readonly values?: ReadonlyArray<Sample>
}

/*
 * prom-client's exposition of a sample line (`lib/registry.js` getMetricsAsString, formatLabels, flattenSharedLabels,
 * escapeLabelValue; `lib/util.js` getValueAsString), byte for byte, without its per-label regular expressions and
 * arrays: a run's scrapes write millions of lines (its own formatting was a quarter of the 5,000-node hour's CPU,
 * docs/benchmarks.md). The shared label sets are formatted once per object, as prom-client caches them.
 */
const escapeString = (s: string): string => (s.includes("\\") || s.includes("\n") ? s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n") : s)

const escapeLabelValue = (v: string | number): string =>
  typeof v !== "string" ? `${v}` : v.includes("\\") || v.includes("\n") || v.includes('"') ? escapeString(v).replace(/"/g, '\\"') : v

const valueString = (v: number): string => (Number.isNaN(v) ? "Nan" : !Number.isFinite(v) ? (v < 0 ? "-Inf" : "+Inf") : `${v}`)

const sharedText = new WeakMap<object, string>()

const formatLabels = (labels: Readonly<Record<string, string | number>>, shared: Readonly<Record<string, string | number>> | undefined): string => {
  let out = ""
  for (const name in labels) {
    if (shared !== undefined && Object.prototype.hasOwnProperty.call(shared, name)) continue
    out += `${out === "" ? "" : ","}${name}="${escapeLabelValue(labels[name]!)}"`
  }
  if (shared === undefined) return out
  let flat = sharedText.get(shared)
  if (flat === undefined) sharedText.set(shared, (flat = formatLabels(shared, undefined)))
  return flat === "" ? out : out === "" ? flat : `${out},${flat}`
}

/**
 * A `BoundHistogram`'s cell's lines up to the value, as `get()` and the loop in `scrape` write them: each bucket's
 * (`le` its own label, the cell's shared), `+Inf`, then `_sum` and `_count`.
 */
const histogramPrefixes = (name: string, bounds: ReadonlyArray<number>, cell: HistogramCell): ReadonlyArray<string> => {
  const line = (sampleName: string, labels: Readonly<Record<string, string | number>>) => {
    const text = formatLabels(labels, cell.labels)
    return `${sampleName}${text === "" ? "" : `{${text}}`} `
  }
  return [...bounds.map((le) => line(`${name}_bucket`, { le })), line(`${name}_bucket`, { le: "+Inf" }), line(`${name}_sum`, {}), line(`${name}_count`, {})]
}

/** A `BoundHistogram`'s samples now, each line stamped: the lines `get()` would give, byte for byte. */
const histogramLines = (family: Family, histogram: BoundHistogram, stamp: string): string => {
  const cells = histogram.boundCells
  const bounds = histogram.bounds
  const prefixes = family.prefixes
  while (prefixes.length < cells.length) prefixes.push(histogramPrefixes(histogram.name, bounds, cells[prefixes.length]!))
  let text = ""
  for (let c = 0; c < cells.length; c++) {
    const cell = cells[c]!
    const p = prefixes[c]!
    // cumulative counts repeat (the buckets above a cell's largest value): each distinct one formatted once
    let cumulative = 0
    let last = -1
    let value = ""
    for (let i = 0; i < bounds.length; i++) {
      cumulative += cell.counts[i]!
      if (cumulative !== last) value = valueString((last = cumulative))
      text += p[i]! + value + stamp
    }
    const count = valueString(cell.count)
    text += p[bounds.length]! + count + stamp + p[bounds.length + 1]! + valueString(cell.sum) + stamp + p[bounds.length + 2]! + count + stamp
  }
  return text
}

export class OpenMetricsFile {
  private readonly families = new Map<string, Family>()
  private readonly spoolDir: string
  private closed = false

  private constructor(
    readonly path: string,
    private readonly registry: Registry
  ) {
    // beside the output: the spool is as large as the file, and the same file system has room for both or neither
    this.spoolDir = mkdtempSync(join(dirname(path), `.${basename(path)}.`))
  }

  /** Starts the file at `path` for `registry` (written by `close`); the registry is switched to OpenMetrics. */
  static open(path: string, registry: Registry): OpenMetricsFile {
    registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE as never)
    return new OpenMetricsFile(path, registry)
  }

  /** Appends what `registry` exposes now, every sample stamped `timestampMs` (written in seconds). */
  async scrape(timestampMs: number): Promise<void> {
    const stamp = ` ${timestampMs / 1000}\n`
    for (const metric of this.registry.getMetricsAsArray() as unknown as ReadonlyArray<RegisteredMetric>) {
      // OpenMetrics names a counter's family without `_total` and its sample with it (as prom-client's `metrics()` does)
      if (metric.type === "counter" && metric.name.endsWith("_total")) metric.name = metric.name.slice(0, -"_total".length)
      // the modelled server's histograms are most of a scrape's lines (~93 %): written from their cells, without
      // `get()`'s object per line and the labels formatted anew (docs/benchmarks.md "Metrics overhead")
      if (metric instanceof BoundHistogram) {
        const family = this.family(escapeString(metric.name), metric.help, metric.type)
        const text = histogramLines(family, metric, stamp)
        if (text !== "") writeSync(family.fd, text)
        continue
      }
      const data = typeof metric.getForPromString === "function" ? await metric.getForPromString() : await metric.get()
      const name = escapeString(data.name)
      const family = this.family(name, data.help, data.type)
      const counter = data.type === "counter"
      let text = ""
      for (const value of data.values ?? []) {
        const sampleName = counter ? `${value.metricName ?? name}_total` : (value.metricName ?? name)
        const labels = formatLabels(value.labels ?? {}, value.sharedLabels)
        text += `${sampleName}${labels === "" ? "" : `{${labels}}`} ${valueString(value.value)}${stamp}`
      }
      if (text !== "") writeSync(family.fd, text)
    }
  }

  /** The family of `name` (escaped), its spool opened when first seen. */
  private family(name: string, help: string, type: string): Family {
    let family = this.families.get(name)
    if (family === undefined) {
      const spool = join(this.spoolDir, String(this.families.size))
      family = { header: `# HELP ${name} ${escapeString(help)}\n# TYPE ${name} ${type}\n`, spool, fd: openSync(spool, "w"), prefixes: [] }
      this.families.set(name, family)
    }
    return family
  }

  /** Writes the file: each family's HELP and TYPE, then its samples; `# EOF` last. Removes the spool. */
  close(): void {
    if (this.closed) return
    this.closed = true
    for (const family of this.families.values()) closeSync(family.fd)
    try {
      const out = openSync(this.path, "w")
      try {
        const buffer = Buffer.allocUnsafe(1 << 20)
        for (const family of this.families.values()) {
          writeSync(out, family.header)
          const input = openSync(family.spool, "r")
          try {
            for (let n = readSync(input, buffer); n > 0; n = readSync(input, buffer)) writeSync(out, buffer, 0, n)
          } finally {
            closeSync(input)
          }
        }
        writeSync(out, "# EOF\n")
      } finally {
        closeSync(out)
      }
    } finally {
      rmSync(this.spoolDir, { recursive: true, force: true })
    }
  }
}
