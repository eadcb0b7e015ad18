/**
 * Health of the load generator itself (docs/measurement.md "The generator's own health"):
 * event-loop lag, process CPU and bytes in/out, with a `saturated` flag so a run whose generator was
 * the bottleneck is marked instead of trusted. This measures the real process, so it uses real time
 * (`performance.now`, `process.cpuUsage`, `perf_hooks.monitorEventLoopDelay`) rather than the Clock.
 *
 * Saturation (defaults, both configurable):
 * - event-loop lag p99 > 50 ms: the finest SLI bucket upstream is 50 ms (apiserver `endpoints/metrics/metrics.go`), so
 *   more lag than that moves samples across SLO-relevant buckets; every timer in the generator fires that late.
 * - CPU ≥ 90 % of one core: the event loop is single-threaded; near 100 % every request waits for the
 *   loop (a Node core tops out at ~20–40k simple req/s).
 */
import { monitorEventLoopDelay, performance, type IntervalHistogram } from "node:perf_hooks"
import { Context, Effect, Layer } from "effect"

export interface SaturationLimits {
  readonly maxLoopLagP99Ms: number
  /** CPU time / wall time; 1 = one full core. */
  readonly maxCpuFractionOfCore: number
}

export const defaultSaturationLimits: SaturationLimits = { maxLoopLagP99Ms: 50, maxCpuFractionOfCore: 0.9 }

export interface LoopLag {
  /** Milliseconds beyond the sampling resolution. */
  readonly p50: number
  readonly p99: number
  readonly max: number
  readonly mean: number
  readonly samples: number
}

export interface HealthReport {
  readonly elapsedMs: number
  readonly loopLag: LoopLag
  readonly cpu: { readonly userMs: number; readonly systemMs: number; readonly fractionOfCore: number }
  readonly bytesIn: number
  readonly bytesOut: number
  readonly saturated: boolean
  /** Why it is saturated, in words ("event-loop lag p99 63.2 ms > 50 ms"). */
  readonly reasons: ReadonlyArray<string>
  /** A run with several generator workers: each one's own report (worker 0 is the coordinating process). */
  readonly workers?: ReadonlyArray<HealthReport>
}

/**
 * The run's health from its workers' (worker 0 first): the worst loop lag and CPU of any worker, bytes summed,
 * saturated when any worker was — one saturated worker delays its share of every action — with the worker named.
 */
export const combineHealth = (workers: ReadonlyArray<HealthReport>): HealthReport => {
  if (workers.length === 1) return workers[0]!
  const worst = <A>(f: (h: HealthReport) => number, pick: (h: HealthReport) => A): A => pick(workers.reduce((a, h) => (f(h) > f(a) ? h : a)))
  const reasons = workers.flatMap((h, i) => h.reasons.map((r) => `worker ${i}: ${r}`))
  return {
    elapsedMs: Math.max(...workers.map((h) => h.elapsedMs)),
    loopLag: worst((h) => h.loopLag.p99, (h) => h.loopLag),
    cpu: worst((h) => h.cpu.fractionOfCore, (h) => h.cpu),
    bytesIn: workers.reduce((a, h) => a + h.bytesIn, 0),
    bytesOut: workers.reduce((a, h) => a + h.bytesOut, 0),
    saturated: workers.some((h) => h.saturated),
    reasons,
    workers
  }
}

/** Pure: which limits a (lag p99, CPU fraction) pair breaks. */
export const assessSaturation = (
  loopLagP99Ms: number,
  cpuFractionOfCore: number,
  limits: SaturationLimits = defaultSaturationLimits
): ReadonlyArray<string> => {
  const reasons: Array<string> = []
  if (loopLagP99Ms > limits.maxLoopLagP99Ms) {
    reasons.push(`event-loop lag p99 ${loopLagP99Ms.toFixed(1)} ms > ${limits.maxLoopLagP99Ms} ms`)
  }
  if (cpuFractionOfCore >= limits.maxCpuFractionOfCore) {
    reasons.push(`CPU ${(cpuFractionOfCore * 100).toFixed(0)} % of a core ≥ ${(limits.maxCpuFractionOfCore * 100).toFixed(0)} %`)
  }
  return reasons
}

export interface GeneratorHealthOptions {
  /** Event-loop sampling resolution; default 10 ms (Node's default). */
  readonly resolutionMs?: number
  readonly limits?: SaturationLimits
}

export class GeneratorHealth extends Context.Tag("clustersim/loadgen/GeneratorHealth")<
  GeneratorHealth,
  {
    readonly addBytesIn: (n: number) => Effect.Effect<void>
    readonly addBytesOut: (n: number) => Effect.Effect<void>
    /** The window since the previous `sample` (or the start); starts a new window. */
    readonly sample: Effect.Effect<HealthReport>
    /** The whole run so far; `saturated` if the whole run or any sampled window was. */
    readonly summary: Effect.Effect<HealthReport>
  }
>() {
  /** Monitors run while the scope is open. */
  static readonly make = (options?: GeneratorHealthOptions) =>
    Effect.gen(function* () {
      const resolutionMs = options?.resolutionMs ?? 10
      const limits = options?.limits ?? defaultSaturationLimits
      const enable = () => {
        const h = monitorEventLoopDelay({ resolution: resolutionMs })
        h.enable()
        return h
      }
      const runLoop = yield* Effect.acquireRelease(Effect.sync(enable), (h) => Effect.sync(() => h.disable()))
      const windowLoop = yield* Effect.acquireRelease(Effect.sync(enable), (h) => Effect.sync(() => h.disable()))
      const start = { wall: performance.now(), cpu: process.cpuUsage() }
      let window = { wall: start.wall, cpu: start.cpu, bytesIn: 0, bytesOut: 0 }
      const total = { bytesIn: 0, bytesOut: 0 }
      const windowReasons = new Set<string>()

      const lagOf = (h: IntervalHistogram): LoopLag => {
        // the monitor records whole timer intervals (≈ resolution when idle); lag is what exceeds it
        const lag = (ns: number) => (h.count === 0 ? 0 : Math.max(0, ns / 1e6 - resolutionMs))
        return { p50: lag(h.percentile(50)), p99: lag(h.percentile(99)), max: lag(h.max), mean: lag(h.mean), samples: h.count }
      }
      const build = (
        h: IntervalHistogram,
        since: { readonly wall: number; readonly cpu: NodeJS.CpuUsage },
        bytesIn: number,
        bytesOut: number,
        extraReasons: Iterable<string>
      ): HealthReport => {
        const elapsedMs = performance.now() - since.wall
        const cpu = process.cpuUsage(since.cpu)
        const fractionOfCore = elapsedMs > 0 ? (cpu.user + cpu.system) / 1000 / elapsedMs : 0
        const loopLag = lagOf(h)
        const reasons = [...new Set([...assessSaturation(loopLag.p99, fractionOfCore, limits), ...extraReasons])]
        return {
          elapsedMs,
          loopLag,
          cpu: { userMs: cpu.user / 1000, systemMs: cpu.system / 1000, fractionOfCore },
          bytesIn,
          bytesOut,
          saturated: reasons.length > 0,
          reasons
        }
      }

      return GeneratorHealth.of({
        addBytesIn: (n) =>
          Effect.sync(() => {
            window.bytesIn += n
            total.bytesIn += n
          }),
        addBytesOut: (n) =>
          Effect.sync(() => {
            window.bytesOut += n
            total.bytesOut += n
          }),
        sample: Effect.sync(() => {
          const r = build(windowLoop, window, window.bytesIn, window.bytesOut, [])
          for (const reason of r.reasons) windowReasons.add(`window: ${reason}`)
          windowLoop.reset()
          window = { wall: performance.now(), cpu: process.cpuUsage(), bytesIn: 0, bytesOut: 0 }
          return r
        }),
        summary: Effect.sync(() => build(runLoop, start, total.bytesIn, total.bytesOut, windowReasons))
      })
    })

  static readonly layer = (options?: GeneratorHealthOptions) => Layer.scoped(GeneratorHealth, GeneratorHealth.make(options))
}
