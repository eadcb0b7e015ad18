/**
 * `clustersim calibrate` against `clustersim serve` in a process of its own, bounded (short steps, small sizes): the
 * probe's steps, progress without a terminal, the cleanup, and a block that a scenario takes and with which the
 * simulation answers each probe step in the time the fit modelled for it. Whether the prediction holds within 25 %
 * at another load is a wall-clock figure: `npm run bench calibration` (docs/calibration.md).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parse } from "yaml"
import { resolveResource } from "../../../src/api/Resources.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { calibrateCommand } from "../../../app/cli/calibrate.js"
import { sharedSeatsOf } from "../../../src/calibrate/Fit.js"
import { runCommand } from "../../../app/cli/run.js"
import { startServerProcess } from "../../../app/cli/ServerProcess.js"
import { parseScenario } from "../../../app/scenario/load.js"

const dir = mkdtempSync(join(tmpdir(), "calibrate-"))

describe("clustersim calibrate", () => {
  it("probes a served server, writes a serviceTime block a scenario takes, and the simulation reproduces the fit at the probe's steps", async () => {
    const stderr: Array<string> = []
    const out = join(dir, "serviceTime.yaml")
    const { result, leftOver } = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* startServerProcess({ seed: 1 })
          const result = yield* calibrateCommand({
            target: server.url,
            out,
            stepMs: 300,
            paceMs: 10,
            probe: { listSizes: [0, 300], bodyKiB: [1, 32], maxSamples: 60 },
            stderr: (s) => void stderr.push(s)
          })
          const left = yield* ApiClient.pipe(
            Effect.flatMap((api) => api.list(resolveResource("configmaps")!)),
            Effect.provide(ApiClient.layerHttp({ baseUrl: server.url }))
          )
          return { result, leftOver: left.items.filter((c) => c.metadata.namespace?.startsWith("clustersim-calibrate")).length }
        })
      )
    )
    expect(result.exitCode).toBe(0)
    // every step reported, also without a terminal
    const lines = stderr.join("").split("\n").filter((l) => l.startsWith("calibrate:"))
    expect(lines.slice(0, 4)).toEqual([
      "calibrate: 300 objects created for the LIST steps",
      "calibrate: round 1 of 3 done",
      "calibrate: round 2 of 3 done",
      "calibrate: round 3 of 3 done"
    ])
    expect(lines.slice(4).map((l) => l.split(":")[1]!.trim())).toEqual([
      "get 1 KiB",
      "list 0 objects",
      "list 300 objects",
      "create 1 KiB",
      "create 32 KiB",
      "GET during a LIST of 300",
      "watch start"
    ])
    expect(stderr.join("")).toContain(`wrote ${out}`)
    // what the probe created is gone
    expect(leftOver).toBe(0)

    const fit = result.fit!
    expect(fit.undetermined).toEqual([])
    const block = parse(readFileSync(out, "utf8")) as { serviceTime: Record<string, number> }
    expect(block.serviceTime).toEqual(fit.serviceTime)
    for (const v of Object.values(block.serviceTime)) expect(v).toBeGreaterThanOrEqual(0)
    // 300 objects cost more to list than one
    expect(block.serviceTime.perObjectMs).toBeGreaterThan(0)

    // each class's spread, p99 ÷ p50 of its steps (Fit.test.ts checks the arithmetic)
    expect(block.serviceTime.readDispersion).toBeGreaterThanOrEqual(1)
    expect(block.serviceTime.writeDispersion).toBeGreaterThanOrEqual(1)
    // a GET was sent during the largest LIST, and the block says what that showed
    const overlap = result.measured!.overlap!
    expect(overlap.listMs).toBeGreaterThan(0)
    expect(result.text).toContain(`GET during the largest LIST p50 ${overlap.getDuringListMs.toFixed(3)} ms`)
    expect(block.serviceTime.sharedSeats).toBe(sharedSeatsOf(overlap))
    const { readDispersion: _r, writeDispersion: _w, sharedSeats: _s, ...medians } = block.serviceTime

    // the block goes under a scenario's cluster section, and the simulation charges each probe step what the fit says
    // (at its median: without the spread and the shared pool, which ServiceTime.test.ts checks)
    const list300 = fit.steps.find((s) => s.step === "list 300 objects")!
    const create32 = result.measured!.steps.find((s) => s.step === "create 32 KiB")!
    const scenario = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: calibrated }
cluster:
  nodes: 1
  serviceTime: ${JSON.stringify({ ...medians, apf: false })}
setup:
  namespaces: [probe]
  objects:
    - { name: listed, resource: configmaps, namespace: probe, count: 300 }
phases:
  - name: steps
    duration: 5s
    actions:
      - { type: closed, name: lists, workers: 1, iterations: 20, request: { verb: list, resource: configmaps, namespace: probe } }
      - { type: closed, name: creates, workers: 1, iterations: 20, request: { verb: create, resource: configmaps, namespace: probe-writes, template: { data: { payload: "${"x".repeat(Math.round(create32.kib * 1024) - 60)}" } } } }
`
    expect(Either.isRight(parseScenario(scenario, "calibrated.yaml"))).toBe(true)
    const file = join(dir, "calibrated.yaml")
    writeFileSync(file, scenario)
    const run = await Effect.runPromise(runCommand({ file, target: { _tag: "in-process" }, outDir: join(dir, "run"), tty: false, stdout: () => {}, stderr: () => {} }))
    const series = (name: string) => run.artifact!.series.find((s) => s.key.metric === "api_call" && s.key.name === name)!
    expect(series("lists").serviceTime.p50).toBeCloseTo(list300.modelledMs, 1)
    const createModelled = fit.steps.find((s) => s.step === "create 32 KiB")!.modelledMs
    expect(Math.abs(series("creates").serviceTime.p50 / createModelled - 1)).toBeLessThan(0.02)
  }, 120_000)

  it("refuses what it must not probe: no URL, a server not on this machine without --allow-remote, a step out of bounds", async () => {
    const run = async (o: Parameters<typeof calibrateCommand>[0]) => {
      const err: Array<string> = []
      const r = await Effect.runPromise(calibrateCommand({ ...o, stdout: () => {}, stderr: (s) => void err.push(s) }))
      return { exitCode: r.exitCode, err: err.join("") }
    }
    expect(await run({ target: "in-process" })).toEqual({ exitCode: 2, err: `clustersim calibrate: --target: expected an http(s):// URL, got "in-process"\n` })
    expect(await run({ target: "https://api.example.com:6443" })).toEqual({
      exitCode: 2,
      err: "clustersim calibrate: --target https://api.example.com:6443: the probe creates and deletes objects; a server not on this machine needs --allow-remote\n"
    })
    expect((await run({ target: "http://127.0.0.1:1", stepMs: 10 })).err).toContain("--step: expected between 100ms and 60s, got 10 ms")
    expect((await run({ target: "http://127.0.0.1:1", paceMs: -1 })).err).toContain("--pace: expected between 0s and 10s, got -1 ms")
    // a server that is not there: said before the probe starts, exit 1
    const refused = await run({ target: "http://127.0.0.1:1", stepMs: 100 })
    expect(refused.exitCode).toBe(1)
    expect(refused.err).toContain("clustersim calibrate: cannot reach the target: connection refused: http://127.0.0.1:1\n")
  }, 60_000)
})
