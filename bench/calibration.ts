/**
 * `npm run bench calibration` (docs/calibration.md, docs/benchmarks.md): `clustersim calibrate` against
 * `clustersim serve` in a process of its own, then the issue-20 check — the simulation with the fitted block
 * predicts the server's LIST and write latencies (p50, p99) within 25 % at a load the probe did not use. Exit 1
 * when a figure is off by more. Wall-clock latencies: run it on a quiet machine (the load average is printed).
 *   node dist/bench/calibration.js [--step 2s]
 */
import { Effect } from "effect"
import * as os from "node:os"
import { calibrateCommand } from "../src/cli/calibrate.js"
import { startServerProcess } from "../src/cli/ServerProcess.js"
import { checkPrediction, defaultCheckLoad, errorsOf } from "./calibrationCheck.js"

const Tolerance = 0.25
const stepArg = process.argv.indexOf("--step")
const stepMs = stepArg > 0 ? Number(/^(\d+)s$/.exec(process.argv[stepArg + 1] ?? "")?.[1] ?? 2) * 1000 : 2000

const fmt = (x: number) => `${x.toFixed(2)} ms`
const code = await Effect.runPromise(
  Effect.scoped(
    Effect.gen(function* () {
      const server = yield* startServerProcess({ seed: 1 })
      console.log(`server ${server.url}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`)
      const calibrated = yield* calibrateCommand({ target: server.url, stepMs, stdout: () => {}, stderr: (s) => void process.stderr.write(s) })
      if (calibrated.fit === undefined) return 1
      console.log(calibrated.text)
      const load = defaultCheckLoad
      console.log(`check: LIST of ${load.listObjects} objects at ${load.listRate}/s for ${load.durationS} s, then ${load.writeKiB} KiB creates at ${load.writeRate}/s for ${load.durationS} s`)
      const compared = yield* Effect.promise(() => checkPrediction(server.url, calibrated.fit!, load))
      let off = 0
      for (const c of compared) {
        const e = errorsOf(c)
        const verdict = (x: number) => (x <= Tolerance ? "ok" : (off++, "OFF"))
        console.log(
          `${c.series.padEnd(5)}  p50 measured ${fmt(c.measured.p50)} predicted ${fmt(c.predicted.p50)} (${(e.p50 * 100).toFixed(0)} %, ${verdict(e.p50)})` +
            `  p99 measured ${fmt(c.measured.p99)} predicted ${fmt(c.predicted.p99)} (${(e.p99 * 100).toFixed(0)} %, ${verdict(e.p99)})`
        )
      }
      console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`)
      console.log(off === 0 ? `all within ${Tolerance * 100} %` : `${off} figure(s) off by more than ${Tolerance * 100} %`)
      return off === 0 ? 0 : 1
    })
  )
)
process.exit(code)
