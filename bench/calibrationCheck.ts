/**
 * Issue 20's check of `clustersim calibrate`: the simulation with the fitted `serviceTime` block predicts the
 * server's LIST and write latencies (p50, p99) at a load the probe did not use — LISTs of a namespace size it did
 * not list, then creates of a body size it did not write, each at a steady arrival rate (the probe sends one request
 * at a time). The same scenario runs against the server over HTTP and, with a cluster section carrying the block, in
 * virtual time; the series' service times (from send to answer) are compared. LISTs and writes run one after the
 * other: on `clustersim serve`'s one event loop a write waits behind a LIST, which the model's separate read and
 * write pools do not reproduce (docs/calibration.md). A short warm-up phase of the same requests comes first and is not
 * counted (the server's first LISTs of a namespace and first creates of a size pay for its caches and the JIT).
 */
import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Fit } from "../src/calibrate/Fit.js"
import { runCommand } from "../app/cli/run.js"
import type { RunArtifact } from "../src/loadgen/Artifact.js"

export interface CheckLoad {
  /** Objects in the listed namespace. */
  readonly listObjects: number
  readonly listRate: number
  /** Body of each create (KiB). */
  readonly writeKiB: number
  readonly writeRate: number
  readonly durationS: number
}

/** Sizes between the probe's defaults (lists of 1, 100, 400, 1000 objects; bodies of 1, 16, 64 KiB). */
export const defaultCheckLoad: CheckLoad = { listObjects: 700, listRate: 5, writeKiB: 8, writeRate: 20, durationS: 10 }

export interface Compared {
  readonly series: "LIST" | "write"
  readonly measured: { readonly p50: number; readonly p99: number }
  readonly predicted: { readonly p50: number; readonly p99: number }
}

/** Warm-up before the counted phases (s). */
const WarmUpS = 2

/** `suffix` names the namespaces, so that repeated measurements against one server start alike. */
const scenarioText = (load: CheckLoad, serviceTime: Fit["serviceTime"] | undefined, suffix = ""): string => `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: calibration-check }
seed: 1
${serviceTime ? `cluster:\n  nodes: 1\n  serviceTime: ${JSON.stringify(serviceTime)}\n` : ""}setup:
  namespaces: [check-list${suffix}, check-write${suffix}]
  objects:
    - { name: listed, resource: configmaps, namespace: check-list${suffix}, count: ${load.listObjects}, template: { data: { index: "0", payload: "${"x".repeat(200)}" } } }
phases:
  - name: warm-up
    duration: ${WarmUpS}s
    actions:
      - { type: constant-arrival-rate, name: warm-up-lists, rate: ${load.listRate}, request: { verb: list, resource: configmaps, namespace: check-list${suffix} } }
      - { type: constant-arrival-rate, name: warm-up-writes, rate: ${load.writeRate}, request: { verb: create, resource: configmaps, namespace: check-write${suffix}, template: { data: { payload: "${"x".repeat(Math.round(load.writeKiB * 1024) - 80)}" } } } }
  - name: lists
    duration: ${load.durationS}s
    actions:
      - { type: constant-arrival-rate, name: lists, rate: ${load.listRate}, request: { verb: list, resource: configmaps, namespace: check-list${suffix} } }
  - name: writes
    duration: ${load.durationS}s
    actions:
      - { type: constant-arrival-rate, name: writes, rate: ${load.writeRate}, request: { verb: create, resource: configmaps, namespace: check-write${suffix}, template: { data: { payload: "${"x".repeat(Math.round(load.writeKiB * 1024) - 80)}" } } } }
thresholds:
  "errors{metric:api_call}": ["count == 0"]
`

const run = async (text: string, target: "simulated" | string): Promise<RunArtifact> => {
  const dir = mkdtempSync(join(tmpdir(), "calibration-check-"))
  const file = join(dir, "check.yaml")
  writeFileSync(file, text)
  const r = await Effect.runPromise(
    runCommand({
      file,
      target: target === "simulated" ? { _tag: "in-process" } : { _tag: "url", options: { baseUrl: target } },
      outDir: join(dir, "out"),
      tty: false,
      workers: 1,
      stdout: () => {},
      stderr: () => {}
    })
  )
  if (r.artifact === undefined || r.exitCode !== 0) throw new Error(`the check scenario failed against ${target}: exit ${r.exitCode}, ${r.artifact?.runError ?? JSON.stringify(r.artifact?.errors)}`)
  return r.artifact
}

const figures = (a: RunArtifact, name: string) => {
  const s = a.series.find((x) => x.key.metric === "api_call" && x.key.name === name)
  if (s === undefined) throw new Error(`no ${name} series`)
  return { p50: s.serviceTime.p50, p99: s.serviceTime.p99 }
}

export interface Figures {
  readonly LIST: { readonly p50: number; readonly p99: number }
  readonly write: { readonly p50: number; readonly p99: number }
}

const figuresOf = (a: RunArtifact): Figures => ({ LIST: figures(a, "lists"), write: figures(a, "writes") })

/** The check's load against the server at `url` (namespaces named with `suffix`, so it can be repeated). */
export const measureCheck = async (url: string, load: CheckLoad = defaultCheckLoad, suffix = ""): Promise<Figures> =>
  figuresOf(await run(scenarioText(load, undefined, suffix), url))

/** The same load in virtual time with the fitted block. */
export const predictCheck = async (fit: Fit, load: CheckLoad = defaultCheckLoad): Promise<Figures> =>
  figuresOf(await run(scenarioText(load, fit.serviceTime), "simulated"))

/** Measures the load against `url`, predicts it with the fitted block, and pairs the figures. */
export const checkPrediction = async (url: string, fit: Fit, load: CheckLoad = defaultCheckLoad): Promise<ReadonlyArray<Compared>> =>
  compare(await measureCheck(url, load), await predictCheck(fit, load))

export const compare = (measured: Figures, predicted: Figures): ReadonlyArray<Compared> =>
  (["LIST", "write"] as const).map((series) => ({ series, measured: measured[series], predicted: predicted[series] }))

/** |predicted / measured − 1| for p50 and p99. */
export const errorsOf = (c: Compared) => ({ p50: Math.abs(c.predicted.p50 / c.measured.p50 - 1), p99: Math.abs(c.predicted.p99 / c.measured.p99 - 1) })
