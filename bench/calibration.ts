/**
 * `npm run bench calibration` (docs/calibration.md, docs/benchmarks.md): `clustersim calibrate` against
 * `clustersim serve` in a process of its own, then the issue-20 check — the simulation with the fitted block
 * predicts the server's LIST and write latencies (p50, p99) within 25 % at a load the probe did not use. Exit 1
 * when a figure is off by more. Wall-clock latencies on a shared machine, so the probe and the check's measurement
 * run in one sitting, interleaved, `--rounds` times (a change of the host's load meets both alike), and each
 * figure is the median over the rounds (one round that a neighbour's build spoiled does not decide it). The load
 * average is printed with the figures.
 *   node dist/bench/calibration.js [--step 2s] [--rounds 3]
 */
import { Effect } from "effect"
import * as os from "node:os"
import { fitServiceTime } from "../src/calibrate/Fit.js"
import type { ProbeResult, StepResult } from "../src/calibrate/Probe.js"
import { calibrateCommand, renderServiceTime } from "../app/cli/calibrate.js"
import { startServerProcess } from "../app/cli/ServerProcess.js"
import { compare, defaultCheckLoad, errorsOf, measureCheck, predictCheck, type Figures } from "./calibrationCheck.js"

const Tolerance = 0.25
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name)
  return i > 0 ? process.argv[i + 1] : undefined
}
const stepMs = Number(/^(\d+)s$/.exec(arg("--step") ?? "2s")?.[1] ?? 2) * 1000
const rounds = Math.max(1, Number(arg("--rounds") ?? 3))

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** Each step's p50 and p99: the median over the rounds. */
const pooledProbe = (results: ReadonlyArray<ProbeResult>): ProbeResult => ({
  steps: results[0]!.steps.map((step, i): StepResult => {
    const p50 = median(results.map((r) => r.steps[i]!.p50))
    const p99 = median(results.map((r) => r.steps[i]!.p99))
    return { ...step, latencyMs: p50, p99Ms: p99, p50, p99, samples: results.reduce((n, r) => n + r.steps[i]!.samples, 0) }
  }),
  ...(results.every((r) => r.overlap !== undefined)
    ? {
        overlap: {
          getAloneMs: median(results.map((r) => r.overlap!.getAloneMs)),
          getDuringListMs: median(results.map((r) => r.overlap!.getDuringListMs)),
          listMs: median(results.map((r) => r.overlap!.listMs))
        }
      }
    : {})
})

const pooledFigures = (all: ReadonlyArray<Figures>): Figures => {
  const of = (series: keyof Figures) => ({ p50: median(all.map((f) => f[series].p50)), p99: median(all.map((f) => f[series].p99)) })
  return { LIST: of("LIST"), write: of("write") }
}

const fmt = (x: number) => `${x.toFixed(2)} ms`
const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(" ")

const code = await Effect.runPromise(
  Effect.scoped(
    Effect.gen(function* () {
      const server = yield* startServerProcess({ seed: 1 })
      const load = defaultCheckLoad
      console.log(`server ${server.url}; load average ${loadAverage()}; ${rounds} rounds of probe (--step ${stepMs / 1000}s) then check`)
      console.log(`check: LIST of ${load.listObjects} objects at ${load.listRate}/s for ${load.durationS} s, then ${load.writeKiB} KiB creates at ${load.writeRate}/s for ${load.durationS} s`)
      const probes: Array<ProbeResult> = []
      const measured: Array<Figures> = []
      for (let round = 0; round < rounds; round++) {
        const calibrated = yield* calibrateCommand({ target: server.url, stepMs, stdout: () => {}, stderr: (s) => void process.stderr.write(s) })
        if (calibrated.measured === undefined) return 1
        probes.push(calibrated.measured)
        const figures = yield* Effect.promise(() => measureCheck(server.url, load, `-${round}`))
        measured.push(figures)
        console.log(
          `round ${round + 1}: LIST p50 ${fmt(figures.LIST.p50)} p99 ${fmt(figures.LIST.p99)}; write p50 ${fmt(figures.write.p50)} p99 ${fmt(figures.write.p99)}; load average ${loadAverage()}`
        )
      }
      const probe = pooledProbe(probes)
      const fit = fitServiceTime(probe.steps, probe.overlap)
      console.log(renderServiceTime(server.url, new Date(), fit, probe))
      // the model's own quantiles over as many requests as were measured in all
      const predicted = yield* Effect.promise(() => predictCheck(fit, { ...load, durationS: load.durationS * rounds }))
      let off = 0
      for (const c of compare(pooledFigures(measured), predicted)) {
        const e = errorsOf(c)
        const verdict = (x: number) => (x <= Tolerance ? "ok" : (off++, "OFF"))
        console.log(
          `${c.series.padEnd(5)}  p50 measured ${fmt(c.measured.p50)} predicted ${fmt(c.predicted.p50)} (${(e.p50 * 100).toFixed(0)} %, ${verdict(e.p50)})` +
            `  p99 measured ${fmt(c.measured.p99)} predicted ${fmt(c.predicted.p99)} (${(e.p99 * 100).toFixed(0)} %, ${verdict(e.p99)})`
        )
      }
      console.log(`load average after: ${loadAverage()}`)
      console.log(off === 0 ? `all within ${Tolerance * 100} %` : `${off} figure(s) off by more than ${Tolerance * 100} %`)
      return off === 0 ? 0 : 1
    })
  )
)
process.exit(code)
