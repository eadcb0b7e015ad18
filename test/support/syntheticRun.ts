/** Synthetic run artifacts with known latency distributions, for compare and report tests. */
import { makeHistogram, type MetricKey, recordMillis } from "../../src/loadgen/LatencyRecorder.js"
import { artifactSeries, type RunArtifact } from "../../src/loadgen/Artifact.js"
import { seededRandom } from "../../app/scenario/Operations.js"

export interface SyntheticSeries {
  readonly key: MetricKey
  /** Median latency in ms; values are log-normal around it. */
  readonly medianMs: number
  readonly sigma?: number
  readonly samples: number
  readonly errors?: number
}

/** A log-normal draw (Box–Muller on a seeded stream). */
const logNormal = (random: () => number, median: number, sigma: number): number =>
  median * Math.exp(sigma * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()))

export const syntheticRun = (o: {
  readonly seed: number
  readonly series: ReadonlyArray<SyntheticSeries>
  readonly sha256?: string
  readonly name?: string
  readonly saturated?: boolean
  readonly durationMs?: number
}): RunArtifact => {
  const random = seededRandom(o.seed)
  const durationMs = o.durationMs ?? 10_000
  const series = o.series.map((s) => {
    const h = makeHistogram()
    for (let i = 0; i < s.samples; i++) recordMillis(h, logNormal(random, s.medianMs, s.sigma ?? 0.5))
    return artifactSeries({ key: s.key, models: ["open"], latency: h, serviceTime: h, count: s.samples, errors: s.errors ?? 0, connectionErrors: 0, dropped: 0, outOfRange: 0 })
  })
  const intervals = o.series.map((s, i) => ({
    key: s.key,
    index: 0,
    startMs: 0,
    endMs: durationMs,
    latency: series[i]!.latency,
    serviceTime: series[i]!.latency,
    errors: s.errors ?? 0,
    connectionErrors: 0,
    dropped: 0,
    latencyHistogram: series[i]!.latencyHistogram,
    serviceTimeHistogram: series[i]!.latencyHistogram
  }))
  return {
    format: "clustersim/run-v2",
    scenario: { name: o.name ?? "synthetic", file: "synthetic.yaml", sha256: o.sha256 ?? "a".repeat(64), text: "" },
    target: { kind: "url", url: "http://127.0.0.1:1" },
    seed: o.seed,
    environment: { node: "v20", platform: "linux", arch: "x64", cpus: 2, cpuModel: "test", totalMemoryBytes: 1 },
    startedAt: "2026-11-26T10:00:00.000Z",
    endedAt: "2026-11-26T10:00:10.000Z",
    durationMs,
    partial: false,
    outcome: "pass",
    exitCode: 0,
    series,
    intervalMs: durationMs,
    intervals,
    errors: { total: 0, messages: [] },
    actions: [],
    relists: 0,
    thresholds: [],
    ...(o.saturated
      ? { health: { saturated: true, reasons: ["event-loop lag p99 250ms > 100ms"], loopLag: { p50: 1, p90: 1, p99: 250, max: 300 }, cpu: { fractionOfCore: 0.99 } } as unknown as RunArtifact["health"] }
      : {})
  }
}
