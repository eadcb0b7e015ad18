/**
 * Loaded into the replay's process by bench/replayTiming.ts (`node --import`): what stalls its event loop. At exit it
 * writes one JSON line to the file `REPLAY_PROBE_OUT` names: the event loop's delay (perf_hooks
 * `monitorEventLoopDelay`, 1 ms resolution: how late a timer due every millisecond ran — the stalls a start can
 * fall in), and the garbage collector's pauses by kind. Not a benchmark itself (the leading `_`: bench/run.ts skips it).
 */
import { writeFileSync } from "node:fs"
import { monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks"

const out = process.env.REPLAY_PROBE_OUT
if (out !== undefined) {
  const delay = monitorEventLoopDelay({ resolution: 1 })
  delay.enable()
  const gc = new Map<string, { count: number; totalMs: number; maxMs: number; over5: number }>()
  const kinds: Readonly<Record<number, string>> = { 1: "scavenge", 2: "minor-mark-compact", 4: "mark-compact", 8: "incremental", 16: "weak-callbacks" }
  new PerformanceObserver((list) => {
    for (const e of list.getEntries() as Array<PerformanceEntry & { detail?: { kind?: number } }>) {
      const kind = kinds[e.detail?.kind ?? 0] ?? "other"
      const g = gc.get(kind) ?? { count: 0, totalMs: 0, maxMs: 0, over5: 0 }
      g.count++
      g.totalMs += e.duration
      g.maxMs = Math.max(g.maxMs, e.duration)
      if (e.duration > 5) g.over5++
      gc.set(kind, g)
    }
  }).observe({ entryTypes: ["gc"] })
  process.on("exit", () => {
    delay.disable()
    // the histogram counts how late each 1 ms tick ran, in ns, over the resolution
    const ms = (ns: number) => Math.round(ns / 1e4) / 100
    // the share of ticks more than 5 ms late, from the histogram's percentile table
    let over5 = 0
    for (const [p, v] of delay.percentiles) if (v > 5e6) over5 = Math.max(over5, 100 - p)
    writeFileSync(
      out,
      JSON.stringify({
        loopDelay: { count: delay.count, p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), p999: ms(delay.percentile(99.9)), max: ms(delay.max), mean: ms(delay.mean), over5ms: Math.round((over5 / 100) * delay.count) },
        gc: Object.fromEntries([...gc].map(([k, v]) => [k, { ...v, totalMs: Math.round(v.totalMs), maxMs: Math.round(v.maxMs * 100) / 100 }]))
      }) + "\n"
    )
  })
}
