import { Effect, Exit, Scope } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "@effect/vitest"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { compareCommand } from "../../app/cli/compare.js"
import type { Comparison } from "../../src/compare/Compare.js"
import type { MetricKey } from "../../src/loadgen/LatencyRecorder.js"
import { syntheticRun } from "../support/syntheticRun.js"
import { closedPort } from "../support/unreachable.js"
import { captureMain } from "../support/captureMain.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-compare-"))
const list: MetricKey = { metric: "api_call", operation: "LIST", resource: "configmaps", scope: "namespace", phase: "steady", name: "list" }
const get: MetricKey = { metric: "api_call", operation: "GET", resource: "configmaps", scope: "resource", phase: "steady", name: "get" }

/** A directory of `rounds` stored runs (round-N/run.json); LIST's median is `listMs`, GET's always 2 ms. */
const storedSide = (name: string, seed: number, listMs: number, rounds = 5, sha256?: string): string => {
  const side = join(dir, name)
  for (let r = 0; r < rounds; r++) {
    const run = syntheticRun({
      seed: seed + r,
      ...(sha256 ? { sha256, name: "other" } : {}),
      series: [
        { key: list, medianMs: listMs, samples: 400 },
        { key: get, medianMs: 2, samples: 400 }
      ]
    })
    mkdirSync(join(side, `round-${r + 1}`), { recursive: true })
    writeFileSync(join(side, `round-${r + 1}`, "run.json"), JSON.stringify(run))
  }
  return side
}

const baseline = storedSide("a", 1, 10)
const slower = storedSide("b-slower", 100, 20)
const same = storedSide("b-same", 200, 10)
const unlike = storedSide("b-unlike", 300, 10, 1, "c".repeat(64))

const capture = (args: ReadonlyArray<string>) => captureMain(args, { stripColour: true })
afterEach(() => void vi.restoreAllMocks())

describe("clustersim compare of stored runs", () => {
  it("finds B 2× slower on LIST, not on GET; --fail-if holds: exit 99; compare.json and compare.html written", async () => {
    const out = join(dir, "out-slower")
    const r = await capture(["compare", baseline, slower, "--fail-if", "p99 ratio > 1.2", "--out", out])
    expect(r.err).toBe("")
    expect(r.code).toBe(99)
    expect(r.out).toContain("A: url http://127.0.0.1:1, 5 rounds")
    expect(r.out).toContain("(intervals over paired rounds (Student t on per-round log ratios))")
    expect(r.out).toMatch(/api_call LIST configmaps namespace steady\/list\n.*\n.*\n  → B slower, p50 ×2\.\d\d \[\d\.\d\d–\d\.\d\d\]/)
    expect(r.out).toMatch(/api_call GET configmaps resource steady\/get\n.*\n.*\n  → no significant difference/)
    expect(r.out).toMatch(/✗ --fail-if p99 ratio > 1\.2: B vs A, api_call LIST configmaps namespace steady\/list: ×\d\.\d\d \[/)
    const json = JSON.parse(readFileSync(join(out, "compare.json"), "utf8")) as Comparison
    expect(json.format).toBe("clustersim/compare-v1")
    expect(json.pairs[0]!.series.map((s) => [s.key.name, s.verdict.split(",")[0]])).toEqual([
      ["get", "no significant difference"],
      ["list", "B slower"]
    ])
    expect(readFileSync(join(out, "compare.html"), "utf8")).toContain("<title>")
  })

  it("two draws of one distribution: no significant difference, the gate passes: exit 0", async () => {
    const r = await capture(["compare", baseline, same, "--fail-if", "p99 ratio > 1.2", "--out", join(dir, "out-same")])
    expect(r.code).toBe(0)
    expect(r.out.match(/→ no significant difference/g)).toHaveLength(2)
    expect(r.out).toContain("✓ --fail-if p99 ratio > 1.2: holds for no series")
  })

  it("--select keeps only the series with those tags", async () => {
    const r = await capture(["compare", baseline, slower, "--select", "operation:LIST", "--out", join(dir, "out-select")])
    expect(r.code).toBe(0)
    expect(r.out).toContain("steady/list")
    expect(r.out).not.toContain("steady/get")
  })

  it("--select with a value no series has: exit 2, the selector and the nearest value named, no gate passed", async () => {
    const typo = await capture(["compare", baseline, slower, "--select", "phase:stedy", "--fail-if", "p50 ratio > 1.1", "--out", join(dir, "out-typo")])
    expect(typo.code).toBe(2)
    expect(typo.err).toBe('clustersim compare: --select phase:stedy: no series has phase "stedy"; did you mean "steady"?\n')
    expect(typo.out).not.toContain("✓")
    const far = await capture(["compare", baseline, slower, "--select", "operation:LIST,name:zzzzzz", "--out", join(dir, "out-far")])
    expect(far.code).toBe(2)
    expect(far.err).toBe('clustersim compare: --select operation:LIST,name:zzzzzz: no series with operation "LIST" has name "zzzzzz" (name is "list")\n')
  })

  it("a --fail-if over no common series does not pass: exit 2", async () => {
    const onlyGet = join(dir, "b-only-get")
    mkdirSync(join(onlyGet, "round-1"), { recursive: true })
    writeFileSync(join(onlyGet, "round-1", "run.json"), JSON.stringify(syntheticRun({ seed: 9, series: [{ key: get, medianMs: 2, samples: 400 }] })))
    const r = await capture(["compare", join(baseline, "round-1", "run.json"), join(onlyGet, "round-1", "run.json"), "--select", "operation:LIST", "--fail-if", "p50 ratio > 1.1", "--out", join(dir, "out-none")])
    expect(r.code).toBe(2)
    expect(r.out).toContain("✗ --fail-if p50 ratio > 1.1: no series on both sides to judge (B vs A)")
    expect(r.err).toBe("clustersim compare: --fail-if judges no series: B vs A has none on both sides with --select operation:LIST\n")
  })

  it("refuses runs of different scenarios: exit 2 with the reason", async () => {
    const r = await capture(["compare", baseline, unlike, "--out", join(dir, "out-unlike")])
    expect(r.code).toBe(2)
    expect(r.err).toContain('clustersim compare: refused: runs of different scenarios: A ran "synthetic"')
    expect(r.err).toContain('B ran "other"')
    expect(r.err).toContain("use clustersim compare --allow-different")
    expect(existsSync(join(dir, "out-unlike"))).toBe(false)
  })

  it("bad input names the flag or the file: exit 2", async () => {
    const cases: Array<[ReadonlyArray<string>, string]> = [
      [["compare", baseline, slower, "--fail-if", "p99 > 2"], '--fail-if: expected "p50|p90|p99 ratio >|>=|<|<= NUMBER" (e.g. "p99 ratio > 1.2"), got "p99 > 2"'],
      [["compare", baseline, slower, "--select", "phase"], "--select:"],
      [["compare", baseline, slower, "--level", "2"], "--level: expected a number between 0 and 1, got 2"],
      [["compare", baseline, slower, "--rounds", "x"], '--rounds: not an integer: "x"'],
      [["compare", "s.yaml", "--target", "embedded", "--target", "in-process", "--rounds", "0"], "--rounds: expected a positive integer, got 0"],
      [["compare", "s.yaml", "--target", "embedded", "--target", "in-process", "--warmup-rounds", "-1"], "--warmup-rounds: expected 0 or a positive integer, got -1"],
      [["compare", baseline], "give two or more run.json files (or directories of rounds), got 1"],
      [["compare", baseline, join(dir, "missing.json")], "missing.json: cannot read: ENOENT"],
      [["compare", "s.yaml", "--target", "embedded"], "--target: give at least two targets to compare, got 1"],
      [["compare", "s.yaml", "t.yaml", "--target", "embedded", "--target", "in-process"], "compare with targets takes exactly one scenario file, got 2 arguments"],
      [["compare", "--bogus", baseline, slower], 'compare: unknown flag "--bogus"']
    ]
    for (const [args, message] of cases) {
      const r = await capture(args)
      expect({ args, code: r.code }).toEqual({ args, code: 2 })
      expect(r.out + r.err).toContain(message)
    }
  })
})

describe("clustersim report of several runs", () => {
  const a = join(baseline, "round-1", "run.json")
  const b = join(slower, "round-1", "run.json")

  it("report a.json b.json prints their comparison; --html writes compare.html; no stack trace", async () => {
    const html = join(dir, "report-compare.html")
    const r = await capture(["report", a, b, "--html", "--out", html])
    expect(r.code).toBe(0)
    expect(r.err).toContain(`clustersim report: 2 runs given, comparing them (clustersim compare ${a} ${b} also writes compare.json)`)
    expect(r.out).toContain("B vs A")
    expect(r.out).toContain("one run per side: the intervals cover request-level noise only")
    expect(r.out).toContain(`comparison: ${html}\n`)
    expect(readFileSync(html, "utf8")).toContain("latency by percentile, sides overlaid")
  })

  it("report a.json --html re-renders the run's report from the artifact", async () => {
    const html = join(dir, "report-one.html")
    const r = await capture(["report", a, "--html", "--out", html])
    expect(r.code).toBe(0)
    expect(r.out).toContain(`report: ${html}\n`)
    expect(readFileSync(html, "utf8")).toContain("api_call LIST configmaps namespace")
  })

  it("--junit with several runs, and a scenario given as a run: exit 2 with what to do", async () => {
    const junit = await capture(["report", a, b, "--junit", join(dir, "j.xml")])
    expect(junit).toMatchObject({ code: 2, err: "clustersim report: --junit writes the thresholds of one run; got 2 files\n" })
    const yaml = join(dir, "s.yaml")
    writeFileSync(yaml, "apiVersion: clustersim/v1\n")
    const r = await capture(["report", yaml])
    expect(r.code).toBe(2)
    expect(r.err).toContain(`(a scenario file? "clustersim run ${yaml}" runs it and writes the run.json that report reads)`)
    expect(r.err).not.toMatch(/\n\s+at /)
  })
})

describe("clustersim compare --target A --target B --rounds N", () => {
  const scope = Effect.runSync(Scope.make())
  const urls: Array<string> = []
  beforeAll(async () => {
    // B answers every request 30 ms late (serve --added-latency 30ms)
    for (const [seed, addedLatencyMs] of [[1, 0], [2, 30]] as const)
      urls.push(
        await Effect.runPromise(
          serveHttp({ host: "127.0.0.1", port: 0, admin: false, addedLatencyMs }).pipe(Effect.map((s) => s.url), Effect.provide(ApiServer.layer({ seed })), Scope.extend(scope))
        )
      )
  })
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

  it("runs one scenario on both servers: a warm-up round, then interleaved rounds (B A, A B, B A), and compares them; B's added latency shows", async () => {
    const scenario = join(dir, "live.yaml")
    writeFileSync(
      scenario,
      `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: live }
setup:
  namespaces: [live]
  objects: [{ name: cms, resource: configmaps, namespace: live, count: 20 }]
phases:
  - name: steady
    duration: 600ms
    actions:
      - { type: constant-arrival-rate, name: list, rate: 20, request: { verb: list, resource: configmaps, namespace: live } }
`
    )
    const out: Array<string> = []
    const err: Array<string> = []
    const outDir = join(dir, "live-out")
    const r = await Effect.runPromise(
      compareCommand({
        scenario,
        targets: urls.map((baseUrl) => ({ _tag: "url" as const, options: { baseUrl } })),
        rounds: 3,
        outDir,
        stdout: (s) => void out.push(s),
        stderr: (s) => void err.push(s)
      })
    )
    expect(r.exitCode).toBe(0)
    const order = err.join("").match(/^(round \d\/3|warm-up 1\/1) [AB] \(http:\/\/127\.0\.0\.1:\d+\): pass.*$/gm)!
    expect(order.map((l) => l.split(" (")[0])).toEqual(["warm-up 1/1 A", "warm-up 1/1 B", "round 1/3 B", "round 1/3 A", "round 2/3 A", "round 2/3 B", "round 3/3 B", "round 3/3 A"])
    expect(order[0]).toMatch(/, not counted$/)
    expect(existsSync(join(outDir, "warmup-1", "B", "run.json"))).toBe(true)
    expect(err.join("")).toContain(`round 1/3 B (${urls[1]}): pass`)
    for (const round of [1, 2, 3]) for (const side of ["A", "B"]) expect(existsSync(join(outDir, `round-${round}`, side, "run.json"))).toBe(true)
    const c = r.comparison!
    expect(c.sides.map((s) => [s.target, s.rounds, s.failedRounds])).toEqual([
      [`url ${urls[0]}`, 3, 0],
      [`url ${urls[1]}`, 3, 0]
    ])
    const row = c.pairs[0]!.series.find((s) => s.key.name === "list")!
    expect(row.method).toBe("rounds-paired")
    expect(row.baseline.count).toBe(36)
    expect(row.other.count).toBe(36)
    expect(row.other.p50).toBeGreaterThanOrEqual(30)
    expect(row.ratios.find((x) => x.quantile === "p50")!.estimate).toBeGreaterThan(1)
    expect(out.join("")).toContain("api_call LIST configmaps namespace steady/list")
    expect(JSON.parse(readFileSync(join(outDir, "compare.json"), "utf8")).scenario.name).toBe("live")
  }, 120_000)

  it("a side nobody listens on: exit 1 before the first round, naming the side and the refused connection", async () => {
    const scenario = join(dir, "hour.yaml")
    writeFileSync(
      scenario,
      `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: hour }
phases:
  - name: steady
    duration: 1h
    actions:
      - { type: constant-arrival-rate, name: list, rate: 1, request: { verb: list, resource: configmaps, namespace: default } }
`
    )
    const down = `http://127.0.0.1:${await closedPort()}`
    const err: Array<string> = []
    const outDir = join(dir, "down-out")
    const r = await Effect.runPromise(
      compareCommand({
        scenario,
        targets: [urls[0]!, down].map((baseUrl) => ({ _tag: "url" as const, options: { baseUrl } })),
        outDir,
        stdout: () => {},
        stderr: (s) => void err.push(s)
      })
    )
    expect(r.exitCode).toBe(1)
    expect(err.join("")).toBe(`clustersim compare: B (${down}): cannot reach the target: connection refused: ${down}\n`)
    expect(existsSync(join(outDir, "warmup-1"))).toBe(false)
  }, 30_000)
})
