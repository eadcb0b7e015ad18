/**
 * A run's metrics as one OpenMetrics file with timestamps (`run --metrics-out`, docs/metrics.md), the input of
 * `promtool tsdb create-blocks-from openmetrics`: a prom-client `Registry` scraped at given instants, each sample
 * line written with the instant. OpenMetrics keeps each metric family in one piece (its HELP and TYPE once, then
 * its samples), so the samples of each family are spooled to a file of their own as they are scraped — nothing of
 * the run is kept in memory — and the families are joined, in the order first seen, behind one `# EOF` at the end.
 * The lines are prom-client's (`Registry.getMetricsAsString`); only the timestamp is added here.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { Registry } from "prom-client"

interface Family {
  readonly header: string
  readonly spool: string
  readonly fd: number
}

/** A metric as the registry holds it: prom-client's own objects (its `name` is what the exposition writes). */
interface RegisteredMetric {
  name: string
  readonly type?: string
}

export class OpenMetricsFile {
  private readonly families = new Map<string, Family>()
  /** Each metric's name in the registry (the key `getSingleMetricAsString` takes), before its counter name is cut. */
  private readonly keys = new WeakMap<RegisteredMetric, string>()
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
    const stamp = ` ${timestampMs / 1000}`
    for (const metric of this.registry.getMetricsAsArray() as unknown as ReadonlyArray<RegisteredMetric>) {
      let key = this.keys.get(metric)
      if (key === undefined) this.keys.set(metric, (key = metric.name))
      // OpenMetrics names a counter's family without `_total` and its sample with it (as prom-client's `metrics()` does)
      if (metric.type === "counter" && metric.name.endsWith("_total")) metric.name = metric.name.slice(0, -"_total".length)
      const text = await this.registry.getSingleMetricAsString(key)
      const lines = text.split("\n")
      const samples = lines.filter((l) => l !== "" && !l.startsWith("#"))
      let family = this.families.get(metric.name)
      if (family === undefined) {
        const spool = join(this.spoolDir, String(this.families.size))
        family = { header: lines.filter((l) => l.startsWith("#")).join("\n") + "\n", spool, fd: openSync(spool, "w") }
        this.families.set(metric.name, family)
      }
      if (samples.length > 0) writeSync(family.fd, samples.map((l) => l + stamp).join("\n") + "\n")
    }
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
