/**
 * `clustersim merge` (app/cli/merge.ts, src/loadgen/SegmentMerge.ts) and `--segment` parsing
 * (src/loadgen/ExecutionSegment.ts): segment artifacts of one run merged exactly, thresholds judged once on the
 * merged figures, refusals of artifacts that are not one run's, a missing or failed segment named.
 */
import { describe, expect, it } from "@effect/vitest"

import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assembleArtifact } from "../../app/cli/artifact.js"
import { mergeCommand, mergedArtifact } from "../../app/cli/merge.js"
import { processExitCode } from "../../app/cli/run.js"
import { renderRunHtml } from "../../reports/html.js"
import { renderJunit } from "../../reports/junit.js"
import { observedText, renderSummary } from "../../reports/summary.js"
import { parseScenario } from "../../app/scenario/load.js"
import { makeRunState } from "../../app/scenario/Run.js"
import { type RunArtifact, withScenarioInputs, writeArtifact } from "../../src/loadgen/Artifact.js"
import { parseSegment, segments, segmentText } from "../../src/loadgen/ExecutionSegment.js"
import { parsedRun, runOptionsOf } from "../support/runFlags.js"
import { Effect, Either, Option } from "effect"
import { decodeHistogram, type MetricKey, Recordings } from "../../src/loadgen/LatencyRecorder.js"

const scenarioText = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: seg }
seed: 3
phases:
  - name: steady
    duration: 4s
    actions:
      - type: constant-arrival-rate
        name: get
        rate: 100
        request: { verb: get, resource: configmaps, namespace: load, name: a }
thresholds:
  "latency{operation:GET}": ["p(99) < 40ms"]
`
const loaded = Either.getOrThrow(parseScenario(scenarioText, "seg.yaml"))
const key: MetricKey = { metric: "api_call", operation: "GET", resource: "configmaps", scope: "resource", name: "get", phase: "steady" }
const startAtMs = Date.UTC(2026, 10, 29, 12, 0, 0)

/** A segment's artifact, as `run --segment` writes it, of these latencies (ms) recorded in its own recorder. */
const segmentArtifact = (index: number, count: number, latencies: ReadonlyArray<number>, o: { seed?: number; outcome?: "error" | "SIGINT" | "SIGTERM" } = {}): RunArtifact => {
  const rec = new Recordings({ originMs: startAtMs })
  latencies.forEach((ms, i) => {
    const at = startAtMs + (i * 4000) / latencies.length
    rec.record(key, { intendedStart: at, sentAt: at, completedAt: at + ms, ok: true, model: "open" })
  })
  rec.flush()
  const state = makeRunState(startAtMs)
  const artifact = assembleArtifact({
    scenario: loaded.scenario,
    file: "seg.yaml",
    text: scenarioText,
    target: { kind: "url", url: "http://127.0.0.1:1" },
    seed: o.seed ?? 3,
    startedAt: new Date(startAtMs - 1000),
    endedAt: new Date(startAtMs + 5000),
    collected: { series: rec.snapshot(), intervals: rec.intervals(), intervalMs: 1000 },
    state,
    health: undefined,
    outcome: o.outcome === "error" ? { error: "connection refused: http://127.0.0.1:1" } : o.outcome !== undefined ? { interrupted: o.outcome } : "completed"
  })
  return { ...withScenarioInputs(artifact, loaded), segment: { index, count, startAtMs, startLagMs: index * 3 } }
}

/** A deterministic spread of latencies, 1–100 ms. */
const latencies = (n: number, salt: number) => Array.from({ length: n }, (_, i) => 1 + ((i * 37 + salt * 11) % 997) / 10)

const exactQuantile = (xs: ReadonlyArray<number>, q: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.ceil(q * sorted.length) - 1]!
}

describe("--segment", () => {
  it("takes i/n (1-based) and k6's from:to fractions; refuses the rest", () => {
    expect(parseSegment("1/3")).toEqual({ segment: { index: 0, count: 3 } })
    expect(parseSegment("3/3")).toEqual({ segment: { index: 2, count: 3 } })
    expect(parseSegment("1/3:2/3")).toEqual({ segment: { index: 1, count: 3 } })
    expect(parseSegment("0:1/2")).toEqual({ segment: { index: 0, count: 2 } })
    expect(parseSegment("1/2:1")).toEqual({ segment: { index: 1, count: 2 } })
    expect(parseSegment("4/3")).toEqual({ error: '"4/3": the segment number must be from 1 to 3' })
    expect(parseSegment("0/3")).toEqual({ error: '"0/3": the segment number must be from 1 to 3' })
    // k6's unequal parts: a sequence filled around the segment (test/loadgen/ExecutionSegment.test.ts has more)
    expect(parseSegment("0:2/3")).toEqual({ segment: { index: 0, count: 2, sequence: "0,2/3,1" } })
    expect(parseSegment("1/4:2/3")).toEqual({ segment: { index: 1, count: 3, sequence: "0,1/4,2/3,1" } })
    expect(parseSegment("2/3:1/3")).toEqual({ error: '"2/3:1/3": from:to must satisfy 0 ≤ from < to ≤ 1' })
    expect(parseSegment("job/4", "0")).toEqual({ segment: { index: 0, count: 4 } })
    expect(parseSegment("job/4", "3")).toEqual({ segment: { index: 3, count: 4 } })
    expect(parseSegment("job/4", "4")).toEqual({ error: '"5/4": the segment number must be from 1 to 4' })
    expect(parseSegment("job/4")).toEqual({ error: '"job/4": JOB_COMPLETION_INDEX is not set (an Indexed Job\'s pods have it; elsewhere give i/n)' })
    expect(parseSegment("half")).toEqual({ error: '"half": expected i/n (the i-th of n segments) or k6\'s from:to fractions (1/4:3/4)' })
  })
})

describe("run --segment --start-at (the command line's real parser)", () => {
  it.effect("a segment and its common start reach the run; a segment of several without a start, or a bad time, is a usage error", () =>
    Effect.gen(function* () {
      const flags = yield* runOptionsOf(["s.yaml", "--target", "http://127.0.0.1:1", "--segment", "2/3", "--start-at", "2026-11-29T12:00:00.250Z"])
      expect(flags).toMatchObject({ segment: { index: 1, count: 3 }, startAt: new Date(Date.UTC(2026, 10, 29, 12, 0, 0, 250)) })
      const k6 = yield* runOptionsOf(["s.yaml", "--target", "http://127.0.0.1:1", "--segment", "0:1/2", "--start-at", "2026-11-29T13:00:00+01:00"])
      expect(k6).toMatchObject({ segment: { index: 0, count: 2 }, startAt: new Date(Date.UTC(2026, 10, 29, 12)) })
      const unequal = yield* runOptionsOf(["s.yaml", "--target", "http://127.0.0.1:1", "--segment", "1/4:3/4", "--segment-sequence", "0,1/4,3/4,1", "--start-at", "2026-11-29T12:00:00Z"])
      expect(unequal).toMatchObject({ segment: { index: 1, count: 3, sequence: "0,1/4,3/4,1" } })
      const pod = yield* runOptionsOf(["s.yaml", "--target", "http://127.0.0.1:1", "--segment", "1/2", "--rendezvous", "uid-1", "--publish", "list-load"])
      expect(pod).toMatchObject({ segment: { index: 0, count: 2 }, rendezvous: "uid-1", publish: "list-load" })
      for (const bad of [["--publish", "x"], ["--rendezvous", "x"], ["--segment", "1/2", "--rendezvous", "x", "--start-at", "2026-11-29T12:00:00Z"], ["--segment", "2/3"], ["--segment", "5/3", "--start-at", "2026-11-29T12:00:00Z"], ["--segment", "1/2", "--start-at", "noon"], ["--segment-sequence", "0,1/2,1", "--start-at", "2026-11-29T12:00:00Z"], ["--segment", "1/4:1/2", "--segment-sequence", "0,1/4,3/4,1", "--start-at", "2026-11-29T12:00:00Z"]]) {
        const r = yield* parsedRun(["s.yaml", "--target", "http://127.0.0.1:1", ...bad])
        expect([r.exitCode, Option.isNone(r.options)]).toEqual([2, true])
      }
    })
  )
})

describe("clustersim merge", () => {
  it("the merged series is the union of the segments': counts summed, percentiles those of all raw latencies within HDR precision", () => {
    for (const count of [1, 2, 3, 7]) {
      const raw = segments(count).map((s) => latencies(60 + s.index * 13, s.index))
      const merged = mergedArtifact(raw.map((l, index) => ({ path: `seg${index}`, artifact: segmentArtifact(index, count, l) })))
      if (!("artifact" in merged)) throw new Error(merged.problem)
      const all = raw.flat()
      const series = merged.artifact.series.find((s) => s.key.metric === "api_call")!
      expect(series.count).toBe(all.length)
      for (const [q, got] of [[0.5, series.latency.p50], [0.99, series.latency.p99]] as const) {
        expect(Math.abs(got - exactQuantile(all, q)) / exactQuantile(all, q)).toBeLessThan(0.002)
      }
      expect(decodeHistogram(series.latencyHistogram).totalCount).toBe(all.length)
      // per-second intervals summed across segments: the whole run's second by second
      const perInterval = merged.artifact.intervals.filter((i) => i.key.metric === "api_call").reduce((n, i) => n + i.latency.count, 0)
      expect(perInterval).toBe(all.length)
      expect(merged.artifact.segments!.map((s) => [s.index, s.requests, s.outcome])).toEqual(raw.map((l, i) => [i, l.length, "thresholds-breached"]))
      expect(merged.artifact.outcome).toBe("thresholds-breached")
    }
  })

  it("thresholds are judged once, on the merged figures, not on any segment's", () => {
    // segment 2 alone breaches its p99 (2 slow of 100); in the whole run the 2 slow are 0.18 %, under the 1 % p99 allows
    const a = segmentArtifact(0, 2, Array.from({ length: 1000 }, () => 5))
    const b = segmentArtifact(1, 2, [...Array.from({ length: 98 }, () => 5), 80, 80])
    expect(b.outcome).toBe("thresholds-breached")
    const merged = mergedArtifact([{ path: "a", artifact: a }, { path: "b", artifact: b }])
    if (!("artifact" in merged)) throw new Error(merged.problem)
    const t = merged.artifact.thresholds.find((r) => r.threshold === "latency{operation:GET}")!
    expect(t.passed).toBe(true)
    expect(merged.artifact.outcome).toBe("pass")
    expect(merged.artifact.segments!.map((s) => s.outcome)).toEqual(["pass", "thresholds-breached"])
    // the breaching segment's process exits 0 (a Job's pod exiting 99 would fail the Job); a whole run's breach is 99
    expect([b.exitCode, processExitCode(b), processExitCode(a)]).toEqual([99, 0, 0])
    const { segment: _, ...whole } = b
    expect(processExitCode(whole)).toBe(99)
  })

  it("a segment's own summary, report and junit show its share's figures without a verdict: the thresholds are judged at merge", () => {
    const b = segmentArtifact(1, 2, [...Array.from({ length: 98 }, () => 5), 80, 80])
    expect(b.outcome).toBe("thresholds-breached")
    const text = renderSummary(b)
    const lines = text.split("\n")
    // its share's values, no ✓/✗, and the verdict the process acts on: exit 0, judged at merge
    expect(lines.slice(lines.indexOf("thresholds (judged at merge, on the whole run; this segment's share observed):"))).toEqual([
      "thresholds (judged at merge, on the whole run; this segment's share observed):",
      `  - latency{operation:GET}: p(99) < 40ms (observed ${observedText(b.thresholds[0]!)})`,
      "  - outcome:error-rate [metric=api_call]: rate <= 0.1 (observed 0)",
      "",
      "SEGMENT 2/2 DONE: thresholds are judged at merge, on the whole run: clustersim merge (exit 0)"
    ])
    expect(text).not.toMatch(/PASS|FAIL|✓|✗|exit 99/)
    const html = renderRunHtml(b)
    expect(html).toContain("<b>SEGMENT 2/2 DONE: thresholds are judged at merge, on the whole run: clustersim merge</b> (exit 0)")
    expect(html).toContain(`<h2>Thresholds <span class="muted">(judged at merge, on the whole run; this segment's share observed)</span></h2><ul><li>latency{operation:GET}: p(99) &lt; 40ms (observed ${observedText(b.thresholds[0]!)})</li><li>outcome:error-rate [metric=api_call]: rate &lt;= 0.1 (observed 0)</li></ul>`)
    expect(html).not.toMatch(/FAIL: thresholds breached|✗/)
    // CI reads a segment's junit as the share's checks, skipped: judged at merge
    const junit = renderJunit(b)
    expect(junit).toContain('tests="2" failures="0" errors="0" skipped="2"')
    expect(junit).toContain('<skipped message="judged at merge, on the whole run (clustersim merge)"/>')
    expect(junit).toContain('<property name="exitCode" value="0"/>')
    // a segment that failed still says so
    const failed = segmentArtifact(1, 2, latencies(5, 2), { outcome: "error" })
    expect(renderSummary(failed).split("\n").at(-1)).toBe("RUN ERROR: connection refused: http://127.0.0.1:1 (exit 1)")
    // the merged run's rows: how each segment ended, not a verdict on its share; the verdict is the whole run's
    const a = segmentArtifact(0, 2, Array.from({ length: 1000 }, () => 5))
    const merged = mergedArtifact([{ path: "a", artifact: a }, { path: "b", artifact: b }])
    if (!("artifact" in merged)) throw new Error(merged.problem)
    const whole = renderSummary(merged.artifact)
    expect(whole).toMatch(/\n1\/2 +completed +1000 +0 /)
    expect(whole).toMatch(/\n2\/2 +completed +100 +0 /)
    expect(whole).toContain("  ✓ latency{operation:GET}: p(99) < 40ms")
    expect(whole.split("\n").at(-1)).toBe("PASS (exit 0)")
  })

  it("refuses artifacts that are not segments of one run, naming the file", () => {
    const a = segmentArtifact(0, 2, latencies(10, 1))
    const refuse = (other: RunArtifact) => mergedArtifact([{ path: "a/run.json", artifact: a }, { path: "b/run.json", artifact: other }])
    expect(refuse(segmentArtifact(1, 2, latencies(10, 2), { seed: 4 }))).toEqual({ problem: "b/run.json: seed 4, but a/run.json has seed 3" })
    expect(refuse(segmentArtifact(1, 3, latencies(10, 2)))).toEqual({ problem: "b/run.json: a plan of 3 segments, but a/run.json has 2" })
    expect(refuse(segmentArtifact(0, 2, latencies(10, 2)))).toEqual({ problem: "b/run.json: segment 1/2 again (also a/run.json)" })
    const { segment: _, ...plain } = segmentArtifact(1, 2, latencies(10, 2))
    expect(refuse(plain)).toEqual({ problem: "b/run.json: not a segment's artifact (run it with --segment i/n)" })
    const other = segmentArtifact(1, 2, latencies(10, 2))
    expect(refuse({ ...other, scenario: { ...other.scenario, sha256: "f".repeat(64) } })).toEqual({
      problem: `b/run.json: another scenario than a/run.json: another scenario file (seg, sha256 ffffffffffff… vs seg, ${a.scenario.sha256.slice(0, 12)}…)`
    })
    // the same file with other --set values (or variables): which values, and where the decoded scenarios differ
    const effective = a.scenario.effective as { phases: Array<Record<string, unknown>> }
    const longer = { ...effective, phases: effective.phases.map((p, i) => (i === 0 ? { ...p, duration: "8s" } : p)) }
    expect(refuse({ ...other, scenario: { ...other.scenario, effective: longer, sets: ["phases[0].duration=8s"] } })).toEqual({
      problem: "b/run.json: another scenario than a/run.json: the same scenario file with other --set values (phases[0].duration=8s vs none); they differ at phases[0].duration: 8s vs 4s"
    })
    expect(refuse({ ...other, scenario: { ...other.scenario, effective: longer } })).toEqual({
      problem: "b/run.json: another scenario than a/run.json: the same scenario file with other values of its variables; they differ at phases[0].duration: 8s vs 4s"
    })
    const later = segmentArtifact(1, 2, latencies(10, 2))
    expect(refuse({ ...later, segment: { ...later.segment!, startAtMs: startAtMs + 60_000 } })).toEqual({
      problem: "b/run.json: started at 2026-11-29T12:01:00.000Z, but a/run.json at 2026-11-29T12:00:00.000Z: segments of different runs"
    })
  })

  it("k6's unequal parts of one sequence merge, each row named from:to; parts of another sequence are refused", () => {
    const sequence = "0,1/4,3/4,1"
    const part = (index: number, l: ReadonlyArray<number>) => {
      const a = segmentArtifact(index, 3, l)
      return { ...a, segment: { ...a.segment!, sequence } }
    }
    const merged = mergedArtifact([0, 1, 2].map((i) => ({ path: `s${i}`, artifact: part(i, latencies([25, 50, 25][i]!, i)) })))
    if (!("artifact" in merged)) throw new Error(merged.problem)
    expect(merged.artifact.series.find((s) => s.key.metric === "api_call")!.count).toBe(100)
    expect(merged.artifact.segments!.map((s) => [segmentText(s), s.requests])).toEqual([["0:1/4", 25], ["1/4:3/4", 50], ["3/4:1", 25]])
    const missing = mergedArtifact([{ path: "s0", artifact: part(0, latencies(5, 1)) }, { path: "s2", artifact: part(2, latencies(5, 1)) }])
    if (!("artifact" in missing)) throw new Error(missing.problem)
    expect(missing.artifact.runError).toBe("segment 1/4:3/4 is missing: no artifact of it was given")
    expect(mergedArtifact([{ path: "a/run.json", artifact: part(0, latencies(5, 1)) }, { path: "b/run.json", artifact: segmentArtifact(1, 3, latencies(5, 2)) }])).toEqual({
      problem: "b/run.json: a part of the sequence 0,1/3,2/3,1, but a/run.json of 0,1/4,3/4,1"
    })
  })

  it("a missing or failed segment fails the merged run, named; what the others measured is kept", () => {
    const missing = mergedArtifact([
      { path: "s1", artifact: segmentArtifact(0, 3, latencies(20, 1)) },
      { path: "s3", artifact: segmentArtifact(2, 3, latencies(20, 3)) }
    ])
    if (!("artifact" in missing)) throw new Error(missing.problem)
    expect(missing.artifact.outcome).toBe("run-error")
    expect(missing.artifact.exitCode).toBe(1)
    expect(missing.artifact.runError).toBe("segment 2/3 is missing: no artifact of it was given")
    expect(missing.artifact.series.find((s) => s.key.metric === "api_call")!.count).toBe(40)
    expect(missing.artifact.segments!.map((s) => s.outcome)).toEqual(["thresholds-breached", "missing", "thresholds-breached"])

    const failed = mergedArtifact([
      { path: "s1", artifact: segmentArtifact(0, 2, latencies(20, 1)) },
      { path: "s2", artifact: segmentArtifact(1, 2, latencies(5, 2), { outcome: "error" }) }
    ])
    if (!("artifact" in failed)) throw new Error(failed.problem)
    expect(failed.artifact.outcome).toBe("run-error")
    expect(failed.artifact.runError).toBe("segment 2/2 failed: connection refused: http://127.0.0.1:1")
  })

  it("segments stopped by the signal the merging run passed on (run --segments on Ctrl-C): interrupted, not failed; another signal fails", () => {
    const stopped = [
      { path: "s1", artifact: segmentArtifact(0, 2, latencies(20, 1), { outcome: "SIGINT" }) },
      { path: "s2", artifact: segmentArtifact(1, 2, latencies(5, 2), { outcome: "SIGINT" }) }
    ]
    const interrupted = mergedArtifact(stopped, "SIGINT")
    if (!("artifact" in interrupted)) throw new Error(interrupted.problem)
    expect([interrupted.artifact.outcome, interrupted.artifact.interruptedBy, interrupted.artifact.exitCode, interrupted.artifact.runError]).toEqual(["interrupted", "SIGINT", 130, undefined])
    expect(interrupted.artifact.series.find((s) => s.key.metric === "api_call")!.count).toBe(25)
    // merged by hand (nobody passed a signal on), or stopped by another signal than the one passed on: failed
    for (const stoppedBy of [undefined, "SIGTERM"] as const) {
      const failed = mergedArtifact(stopped, stoppedBy)
      if (!("artifact" in failed)) throw new Error(failed.problem)
      expect([failed.artifact.outcome, failed.artifact.exitCode]).toEqual(["run-error", 1])
      expect(failed.artifact.runError).toBe("segment 1/2 was stopped (SIGINT) before its end; segment 2/2 was stopped (SIGINT) before its end")
    }
    // a missing segment still fails a run the user stopped
    const missing = mergedArtifact(stopped.slice(0, 1), "SIGINT")
    if (!("artifact" in missing)) throw new Error(missing.problem)
    expect([missing.artifact.outcome, missing.artifact.runError]).toEqual(["run-error", "segment 2/2 is missing: no artifact of it was given"])
  })

  it("the command writes the merged run.json and prints the whole with each segment's row", () => {
    const dir = mkdtempSync(join(tmpdir(), "merge-"))
    writeArtifact(join(dir, "s1"), segmentArtifact(0, 2, Array.from({ length: 50 }, () => 3)))
    writeArtifact(join(dir, "s2"), segmentArtifact(1, 2, Array.from({ length: 40 }, () => 7)))
    const out: Array<string> = []
    const err: Array<string> = []
    const code = mergeCommand({ paths: [join(dir, "s1"), join(dir, "s2", "run.json")], outDir: join(dir, "m"), stdout: (s) => out.push(s), stderr: (s) => err.push(s) })
    expect(err.join("")).toBe("")
    expect(code).toBe(0)
    const text = out.join("")
    expect(text).toContain("segments (2, merged):")
    expect(text).toMatch(/1\/2 +completed +50 +0 +3ms +3ms +0 +-/)
    expect(text).toMatch(/2\/2 +completed +40 +0 +7ms +7ms +3ms +-/)
    expect(text).toContain("PASS (exit 0)")
    const written = JSON.parse(readFileSync(join(dir, "m", "run.json"), "utf8")) as RunArtifact
    expect(written.series.find((s) => s.key.metric === "api_call")!.count).toBe(90)
    expect(written.segments).toHaveLength(2)

    const bad: Array<string> = []
    expect(mergeCommand({ paths: [join(dir, "nope")], stdout: () => {}, stderr: (s) => bad.push(s) })).toBe(2)
    expect(bad.join("")).toBe(`clustersim merge: ${join(dir, "nope")}: cannot read: ENOENT: no such file or directory, open '${join(dir, "nope")}'\n`)
  })

  it("--junit where no file can be written is refused before anything is written: exit 2, the directory not made", () => {
    const dir = mkdtempSync(join(tmpdir(), "merge-junit-"))
    writeArtifact(join(dir, "s1"), segmentArtifact(0, 2, [3]))
    writeArtifact(join(dir, "s2"), segmentArtifact(1, 2, [7]))
    const err: Array<string> = []
    const junit = join(dir, "no", "j.xml")
    expect(mergeCommand({ paths: [join(dir, "s1"), join(dir, "s2")], outDir: join(dir, "m"), junit, stdout: () => {}, stderr: (s) => err.push(s) })).toBe(2)
    expect(err.join("")).toBe(`clustersim merge: --junit ${junit}: cannot write there: no such directory: ${join(dir, "no")}\n`)
    expect(existsSync(join(dir, "no"))).toBe(false)
    expect(existsSync(join(dir, "m", "run.json"))).toBe(false)
  })
})
