import { Effect, Either } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { runCommand } from "../../app/cli/run.js"
import { makeHistogram, type SeriesSnapshot } from "../../src/loadgen/LatencyRecorder.js"
import { evaluate, parseThreshold } from "../../src/loadgen/Thresholds.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-tags-"))

const series = (phase: string, name: string, ms: number): SeriesSnapshot => {
  const h = makeHistogram()
  h.recordValue(ms * 1000)
  return { key: { metric: "api_call", operation: "LIST", resource: "configmaps", scope: "namespace", phase, name }, models: ["open"], latency: h, serviceTime: h, count: 1, errors: 0, connectionErrors: 0, dropped: 0, outOfRange: 0 }
}

describe("series tags", () => {
  it("thresholds select and group by phase and name", () => {
    const all = [series("warmup", "list-a", 900), series("steady", "list-a", 10), series("steady", "list-b", 20)]
    const steady = Either.getOrThrow(parseThreshold("latency{phase:steady}", "max < 100ms"))
    expect(evaluate([steady], all).map((r) => [r.observed, r.passed])).toEqual([[20, true]])
    const perAction = Either.getOrThrow(parseThreshold("latency{phase:steady,name:*}", "max < 15ms"))
    expect(evaluate([perAction], all).map((r) => [r.group, r.passed])).toEqual([
      [{ name: "list-a" }, true],
      [{ name: "list-b" }, false]
    ])
    expect(Either.isLeft(parseThreshold("latency{stage:x}", "max < 1s"))).toBe(true)
  })

  it("three LIST actions of one kind are three series, each with its action name and phase", async () => {
    const f = join(dir, "three.yaml")
    writeFileSync(
      f,
      `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: three-lists }
setup:
  namespaces: [t]
  objects: [{ name: cms, resource: configmaps, namespace: t, count: 5 }]
phases:
  - name: warmup
    duration: 300ms
    actions:
      - { type: closed, name: list-a, workers: 1, iterations: 2, request: { verb: list, resource: configmaps, namespace: t } }
  - name: steady
    duration: 300ms
    actions:
      - { type: closed, name: list-a, workers: 1, iterations: 2, request: { verb: list, resource: configmaps, namespace: t } }
      - { type: closed, name: list-b, workers: 1, iterations: 2, request: { verb: list, resource: configmaps, namespace: t } }
      - { type: closed, name: list-c, workers: 1, iterations: 2, request: { verb: list, resource: configmaps, namespace: t } }
thresholds:
  "iterations{phase:steady,operation:LIST}": ["count == 6"]
`
    )
    const outDir = join(dir, "out")
    const out: Array<string> = []
    const r = await Effect.runPromise(runCommand({ file: f, target: { _tag: "in-process" }, outDir, tty: false, stdout: (s) => void out.push(s), stderr: () => {} }))
    expect(r.exitCode).toBe(0)
    const a = JSON.parse(readFileSync(join(outDir, "run.json"), "utf8")) as RunArtifact
    const lists = a.series.filter((s) => s.key.operation === "LIST").map((s) => `${s.key.phase}/${s.key.name}`).sort()
    expect(lists).toEqual(["steady/list-a", "steady/list-b", "steady/list-c", "warmup/list-a"])
    expect(a.series.find((s) => s.key.metric === "setup")!.key).toMatchObject({ phase: "setup", name: "cms" })
    expect(out.join("")).toMatch(/api_call LIST configmaps namespace steady\/list-b\s+closed\s+2/)
  }, 30_000)
})
