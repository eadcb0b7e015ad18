/**
 * `clustersim calibrate [--target URL | --kubeconfig F --context C] [--out file]` (docs/calibration.md): probes the server (src/calibrate/Probe.ts),
 * fits the service-time model to what it measured (src/calibrate/Fit.ts) and writes the `serviceTime` block that
 * makes a simulated cluster reproduce it. The probe writes objects, so a target that is not on this machine needs
 * `--allow-remote`.
 */
import { Effect, Either } from "effect"
import { writeFileSync } from "node:fs"
import { fitServiceTime, type Fit } from "../../src/calibrate/Fit.js"
import { defaultProbeOptions, probe, type ProbeOptions, type ProbeResult } from "../../src/calibrate/Probe.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { ExitCode } from "../../src/loadgen/Thresholds.js"
import type { LoadingEnvironment } from "../../src/client/KubeconfigLoading.js"
import { outFileProblem } from "./outDir.js"
import { describeTarget, isLocalTarget, resolveTarget, type TargetValues } from "./target.js"
import { unreachable } from "./preflight.js"

/** The target flags as `run` takes them (./targetFlags.ts): a URL, or a kubeconfig context. */
export interface CalibrateCommandOptions extends TargetValues {
  /** The kubeconfig loading rules' environment (default: this process's). */
  readonly env?: LoadingEnvironment
  readonly out?: string
  /** Wall time of one probe step (ms). */
  readonly stepMs?: number
  /** Start of one request to the next within a step (ms). */
  readonly paceMs?: number
  readonly allowRemote?: boolean
  /** Probe settings besides the step time (tests use smaller ones). */
  readonly probe?: Partial<Omit<ProbeOptions, "progress" | "stepMs" | "paceMs">>
  readonly stdout?: (s: string) => void
  readonly stderr?: (s: string) => void
}

export interface CalibrateCommandResult {
  readonly exitCode: number
  readonly fit?: Fit
  readonly measured?: ProbeResult
  /** The block as written. */
  readonly text?: string
}

const ms = (x: number): string => `${x.toFixed(3)} ms`

/** The `serviceTime` block with what it was fitted to, as comments (YAML, to go under `cluster:`). */
export const renderServiceTime = (target: string, at: Date, fit: Fit, measured: ProbeResult): string => {
  const width = Math.max(...fit.steps.map((s) => s.step.length))
  const lines = [
    `# clustersim calibrate --target ${target} at ${at.toISOString()}: the service-time model fitted to the probe`,
    `# (docs/calibration.md). Paste under a scenario's "cluster:". Per step, the median measured and modelled:`,
    ...fit.steps.map((s) => `#   ${s.step.padEnd(width)}  measured ${ms(s.measuredMs).padStart(12)}  modelled ${ms(s.modelledMs).padStart(12)}`),
    ...measured.steps.map((s) => `#   ${s.step.padEnd(width)}  p99 ${ms(s.p99)} over ${s.samples} requests, one at a time`),
    ...(measured.watchStart ? [`#   watch start p50 ${ms(measured.watchStart.p50)} (the model books a watch start as a read)`] : []),
    ...(measured.overlap
      ? [
          `#   GET during the largest LIST p50 ${ms(measured.overlap.getDuringListMs)} (alone ${ms(measured.overlap.getAloneMs)}, the LIST ${ms(measured.overlap.listMs)}): ` +
            (fit.serviceTime.sharedSeats === 1 ? "it waits for the LIST — one thread, sharedSeats: 1" : "answered beside the LIST — no shared pool")
        ]
      : []),
    ...(fit.undetermined.length > 0 ? [`#   not determined by the probe (simulator defaults): ${fit.undetermined.join(", ")}`] : []),
    `# The concurrency settings (maxRequestsInflight, maxMutatingRequestsInflight) and apf are not probed: set them`,
    `# as the server is configured (with sharedSeats, apf is off: a server on one thread has no priority levels).`,
    `serviceTime:`,
    ...Object.entries(fit.serviceTime).map(([k, v]) => `  ${k}: ${v}`)
  ]
  return lines.join("\n") + "\n"
}

export const calibrateCommand = (o: CalibrateCommandOptions): Effect.Effect<CalibrateCommandResult> =>
  Effect.gen(function* () {
    const out = o.stdout ?? ((s: string) => void process.stdout.write(s))
    const err = o.stderr ?? ((s: string) => void process.stderr.write(s))
    const invalid = (message: string) => {
      err(`clustersim calibrate: ${message}\n`)
      return { exitCode: ExitCode.InvalidInput }
    }
    const target = yield* Effect.either(resolveTarget(o, { ...(o.env ? { env: o.env } : {}), warn: (l) => err(`${l}\n`) }))
    if (Either.isLeft(target)) return invalid(target.left.message)
    if (target.right._tag !== "url")
      return invalid(
        o.target !== undefined
          ? `--target: expected an http(s):// URL, got "${o.target}"`
          : "no server to probe: give --target URL, or a kubeconfig (--kubeconfig, $KUBECONFIG or ~/.kube/config)"
      )
    const url = target.right.options.baseUrl
    if (!isLocalTarget(target.right) && !o.allowRemote)
      return invalid(`--target ${url}: the probe creates and deletes objects; a server not on this machine needs --allow-remote`)
    // checked before the probe (minutes of it), not found at its end (./outDir.ts)
    const outProblem = o.out === undefined ? undefined : outFileProblem(o.out)
    if (outProblem !== undefined) return invalid(`--out ${o.out}: cannot write there: ${outProblem}`)
    err(`${describeTarget(target.right)}\n`)
    if (o.stepMs !== undefined && !(o.stepMs >= 100 && o.stepMs <= 60_000)) return invalid(`--step: expected between 100ms and 60s, got ${o.stepMs} ms`)
    if (o.paceMs !== undefined && !(o.paceMs >= 0 && o.paceMs <= 10_000)) return invalid(`--pace: expected between 0s and 10s, got ${o.paceMs} ms`)
    const options: ProbeOptions = {
      ...defaultProbeOptions,
      ...o.probe,
      ...(o.stepMs !== undefined ? { stepMs: o.stepMs } : {}),
      ...(o.paceMs !== undefined ? { paceMs: o.paceMs } : {}),
      progress: (line) => err(`${line}\n`)
    }
    const down = yield* unreachable(target.right)
    if (down !== undefined) {
      err(`clustersim calibrate: ${down}\n`)
      return { exitCode: ExitCode.RunError }
    }
    const measured = yield* Effect.either(probe(options).pipe(Effect.provide(ApiClient.layerHttp(target.right.options))))
    if (Either.isLeft(measured)) {
      err(`clustersim calibrate: the probe failed: ${measured.left.message}\n`)
      return { exitCode: ExitCode.RunError }
    }
    const fit = fitServiceTime(measured.right.steps, measured.right.overlap)
    const text = renderServiceTime(url, new Date(), fit, measured.right)
    if (o.out !== undefined) {
      const written = yield* Effect.either(Effect.try(() => writeFileSync(o.out!, text)))
      if (Either.isLeft(written)) {
        err(`clustersim calibrate: cannot write ${o.out}: ${(written.left.cause as Error).message}\n`)
        return { exitCode: ExitCode.RunError }
      }
      err(`clustersim calibrate: wrote ${o.out}\n`)
    } else out(text)
    return { exitCode: ExitCode.Pass, fit, measured: measured.right, text }
  })
