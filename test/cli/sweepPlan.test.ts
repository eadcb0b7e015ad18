/**
 * `clustersim sweep`'s points (app/cli/SweepPlan.ts): how a `--vary` list is split, the order of the product, each
 * value checked as its `--set` would be, and the refusals, with their exact messages; through the command line, a
 * refused sweep exits 2 before any point runs.
 */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Either } from "effect"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MaxSweepPoints, planSweep, splitValues } from "../../app/cli/SweepPlan.js"
import { captureMain } from "../support/captureMain.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-sweep-plan-"))
const file = join(dir, "s.yaml")
const text = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: plan }
seed: 7
duration: 1m
cluster:
  nodes: 5
  zones: [zone-a]
phases: []
`
writeFileSync(file, text)

const plan = (varies: ReadonlyArray<string>, sets: ReadonlyArray<string> = []) => planSweep({ file, text, varies, sets })
const refusal = (varies: ReadonlyArray<string>, sets: ReadonlyArray<string> = []) => {
  const r = plan(varies, sets)
  return Either.isLeft(r) ? r.left : "planned"
}

describe("--vary values", () => {
  it("split at the commas outside [ ] and { }: a flow value keeps its own", () => {
    expect(splitValues("50,500,5000")).toEqual(["50", "500", "5000"])
    expect(splitValues("[a,b],[c]")).toEqual(["[a,b]", "[c]"])
    expect(splitValues("{a: 1, b: [2,3]},{}")).toEqual(["{a: 1, b: [2,3]}", "{}"])
    expect(splitValues("30s")).toEqual(["30s"])
    expect(splitValues("1,,2")).toBeUndefined()
    expect(splitValues("")).toBeUndefined()
  })
})

describe("sweep points", () => {
  it("a load scenario (no simulated section) is planned as one on the real clock", () => {
    const load = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: load }
phases:
  - name: p
    duration: 1s
    actions:
      - { type: constant-arrival-rate, name: get, rate: 5, request: { verb: get, resource: namespaces, name: default } }
`
    const r = planSweep({ file: "load.yaml", text: load, varies: ["phases.0.duration=1s,2s"], sets: [] })
    if (Either.isLeft(r)) throw new Error(r.left)
    expect(r.right.scenario).toEqual({ name: "load", seed: undefined, simulated: false })
  })

  it("the product in --vary order, the first outermost; each point's --sets and directory", () => {
    const r = plan(["cluster.nodes=5,10,20", "cluster.zones=[a,b],[c]"])
    if (Either.isLeft(r)) throw new Error(r.left)
    expect(r.right.scenario).toEqual({ name: "plan", seed: 7, simulated: true })
    expect(r.right.parameters).toEqual([
      { path: "cluster.nodes", values: ["5", "10", "20"] },
      { path: "cluster.zones", values: ["[a,b]", "[c]"] }
    ])
    expect(r.right.points.map((p) => [p.index, p.values, p.sets, p.dir])).toEqual([
      [1, ["5", "[a,b]"], ["cluster.nodes=5", "cluster.zones=[a,b]"], "1-nodes=5_zones=a+b"],
      [2, ["5", "[c]"], ["cluster.nodes=5", "cluster.zones=[c]"], "2-nodes=5_zones=c"],
      [3, ["10", "[a,b]"], ["cluster.nodes=10", "cluster.zones=[a,b]"], "3-nodes=10_zones=a+b"],
      [4, ["10", "[c]"], ["cluster.nodes=10", "cluster.zones=[c]"], "4-nodes=10_zones=c"],
      [5, ["20", "[a,b]"], ["cluster.nodes=20", "cluster.zones=[a,b]"], "5-nodes=20_zones=a+b"],
      [6, ["20", "[c]"], ["cluster.nodes=20", "cluster.zones=[c]"], "6-nodes=20_zones=c"]
    ])
  })

  it("directories sort in point order: the index is padded to the count's width", () => {
    const r = plan([`cluster.nodes=${Array.from({ length: 12 }, (_, i) => i + 1).join(",")}`])
    if (Either.isLeft(r)) throw new Error(r.left)
    expect(r.right.points.map((p) => p.dir).slice(0, 2)).toEqual(["01-nodes=1", "02-nodes=2"])
    expect(r.right.points[11]!.dir).toBe("12-nodes=12")
  })

  it("each value checked as --set would check it: the message names the --vary, the value and the field", () => {
    expect(refusal(["cluster.nodes=5,abc"])).toBe(`--vary cluster.nodes: the value abc: cluster.nodes: expected a number, got "abc"`)
    expect(refusal(["cluster.nodes=-3"])).toBe(`--vary cluster.nodes: the value -3: cluster.nodes: Expected a number between 0 and 100000, actual -3`)
    expect(refusal(["cluster.nodez=5"])).toBe(`--vary cluster.nodez: the value 5: cluster.nodez: unknown field "nodez" in cluster; the closest valid path is cluster.nodes`)
    expect(refusal(["cluster.zones=[a,b],oops"])).toBe(`--vary cluster.zones: the value oops: cluster.zones: expected a list, e.g. [a, b], got "oops"`)
  })

  it("refuses a malformed flag, an empty list or value, a field varied twice or also --set, a value listed twice", () => {
    expect(refusal([])).toBe("sweep needs at least one --vary PATH=V1,V2,… (e.g. --vary cluster.nodes=50,500)")
    expect(refusal(["cluster.nodes"])).toBe("--vary cluster.nodes: expected PATH=V1,V2,…, e.g. cluster.nodes=50,500")
    expect(refusal(["cluster.nodes="])).toBe(`--vary cluster.nodes=: no values after "=": give one or more, separated by commas (cluster.nodes=50,500)`)
    expect(refusal(["cluster.nodes=1,,2"])).toBe(
      "--vary cluster.nodes=1,,2: an empty value in the list: the values are separated by single commas (a comma inside [ ] or { } belongs to the value)"
    )
    expect(refusal(["cluster.nodes=1,2", "cluster.nodes=3"])).toBe("--vary cluster.nodes: varied twice: give each field one --vary with all its values")
    expect(refusal(["cluster.nodes=1,2", "cluster={nodes: 3}"])).toBe("--vary cluster: overlaps --vary cluster.nodes: give each field one --vary with all its values")
    expect(refusal(["cluster.nodes=1,2"], ["cluster.nodes=3"])).toBe("--vary cluster.nodes: also given by --set cluster.nodes=3: a field is either set for every point or varied, not both")
    expect(refusal(["cluster.nodes=5,5"])).toBe("--vary cluster.nodes=5,5: the value 5 is listed twice")
    // the same point written two ways would run twice
    expect(refusal(["duration=1m,60s"])).toBe("--vary duration=1m,60s: the value 60s is listed twice (as 1m)")
    expect(refusal(["cluster.nodes=5,5.0"])).toBe("--vary cluster.nodes=5,5.0: the value 5.0 is listed twice (as 5)")
  })

  it(`refuses more than ${MaxSweepPoints} points before checking a value`, () => {
    const seventeen = Array.from({ length: 17 }, (_, i) => i + 1).join(",")
    expect(refusal([`cluster.nodes=${seventeen}`, `seed=${seventeen}`])).toBe(`sweep: 17 × 17 = 289 points, more than ${MaxSweepPoints}: split the sweep, or vary fewer values`)
    const r = plan([`cluster.nodes=${Array.from({ length: 16 }, (_, i) => i + 1).join(",")}`, `seed=${seventeen.split(",").slice(0, 16).join(",")}`])
    expect(Either.isRight(r) && r.right.points.length).toBe(MaxSweepPoints)
  })

  it("values that pass one by one but clash at a point: refused naming the point", () => {
    const clash = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: clash }
setup:
  namespaces: [n]
  objects:
    - { name: x, resource: configmaps, namespace: n, count: 1 }
    - { name: y, resource: configmaps, namespace: n, count: 1 }
phases: []
`
    const r = planSweep({ file, text: clash, varies: ["setup.objects[0].name=a,b", "setup.objects[1].name=b,c"], sets: [] })
    expect(Either.isLeft(r) && r.left).toBe(
      `sweep: point 3 (setup.objects[0].name=b, setup.objects[1].name=b): ${file}: --set setup.objects[1].name=b: setup.objects[1].name: duplicate object set name "b"`
    )
  })
})

describe("clustersim sweep: refused before any point runs", () => {
  const capture = (args: ReadonlyArray<string>) => captureMain(args)
  afterEach(() => void vi.restoreAllMocks())

  it("a bad value: exit 2, the message and where the usage is; no output directory made", async () => {
    const out = join(dir, "never")
    const r = await capture(["sweep", file, "--vary", "cluster.nodes=5,abc", "--out", out])
    expect(r.code).toBe(2)
    expect(r.err).toContain(`clustersim: --vary cluster.nodes: the value abc: cluster.nodes: expected a number, got "abc"\nRun "clustersim sweep --help" for usage.\n`)
    expect(r.out).toBe("")
    expect(existsSync(out)).toBe(false)
  })

  it("--workers below 1, and more than 1 against a real server: exit 2", async () => {
    expect((await capture(["sweep", file, "--vary", "cluster.nodes=5", "--workers", "0"])).err).toContain("clustersim: --workers: must be at least 1, got 0\n")
    const real = await capture(["sweep", file, "--vary", "cluster.nodes=5", "--workers", "2", "--target", "http://127.0.0.1:9"])
    expect(real.code).toBe(2)
    expect(real.err).toContain("clustersim: --workers 2: a sweep against a real server (http://127.0.0.1:9 (--target)) runs its points one at a time, since they would share it\n")
  })

  it("an unknown flag names itself", async () => {
    const r = await capture(["sweep", file, "--vary", "cluster.nodes=5", "--segments", "2"])
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/--segments/)
  })
})
