/**
 * `clustersim compare` of a scenario whose phase is a `replay:` action, against two `clustersim serve` processes — A
 * as it comes, B answering 40 ms late (`--added-latency`): each side replays the same log (every request, the
 * recorded codes), and the comparison has each replayed series on both sides with the same counts and no errors,
 * B's latency 40 ms above A's, and the verdict that B is slower; compare.json and compare.html are written.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Comparison } from "../../../src/compare/Compare.js"
import { auditEvent, type EventSpec, lines } from "../../replay/auditEvents.js"
import { cli, replayReportOf, serve, type Served, stop } from "./processes.js"

const dir = mkdtempSync(join(tmpdir(), "replay-compare-"))
const ref = (name?: string) => ({ resource: "configmaps", namespace: "app", apiVersion: "v1", ...(name ? { name } : {}) })

// a Metadata-level log of 2 s: 40 reads of a config map the log never creates (seeded), 10 lists, one patch
const events: Array<EventSpec> = []
for (let i = 0; i < 40; i++) events.push({ level: "Metadata", at: i * 50, verb: "get", uri: "/api/v1/namespaces/app/configmaps/settings", code: 200, ref: ref("settings") })
for (let i = 0; i < 10; i++) events.push({ level: "Metadata", at: 25 + i * 200, verb: "list", uri: "/api/v1/namespaces/app/configmaps?limit=500", code: 200, ref: ref() })
events.push({ level: "Metadata", at: 1000, verb: "patch", uri: "/api/v1/namespaces/app/configmaps/settings", code: 200, ref: ref("settings") })
events.sort((a, b) => a.at - b.at)
const log = join(dir, "reads.log")
writeFileSync(log, lines(events.map(auditEvent)))

const scenario = join(dir, "replay-compare.yaml")
writeFileSync(
  scenario,
  JSON.stringify({
    apiVersion: "clustersim/v1",
    kind: "Scenario",
    metadata: { name: "replay-compare" },
    phases: [{ name: "replay", duration: "0s", actions: [{ type: "replay", name: "reads", logs: [log], namespacePrefix: "cmp" }] }]
  })
)

let a: Served | undefined
let b: Served | undefined
beforeAll(async () => {
  ;[a, b] = await Promise.all([serve(), serve(["--added-latency", "40ms"])])
}, 60_000)
afterAll(async () => void (await Promise.all([stop(a), stop(b)])))

describe("clustersim compare of a replay on two targets", () => {
  it("replays the log on each side and compares the replayed series: same counts, no errors, B slower by its added latency", async () => {
    const out = join(dir, "compare")
    const r = await cli(["compare", scenario, "--target", a!.url, "--target", b!.url, "--rounds", "1", "--warmup-rounds", "0", "--out", out])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    // each side's run: the whole log, every recorded code, the seed on that side
    for (const side of ["A", "B"]) {
      const rep = replayReportOf(join(out, "round-1", side))
      expect(rep.requests, side).toMatchObject({ planned: 51, sent: 51, matched: 51, mismatched: 0, synthesized: 1 })
      expect(rep.seeding, side).toMatchObject({ namespaces: 1, objects: 1, synthesized: 1, failed: 0 })
    }
    const c = JSON.parse(readFileSync(join(out, "compare.json"), "utf8")) as Comparison
    expect(c.scenario.name).toBe("replay-compare")
    expect(c.sides.map((s) => [s.label, s.target, s.rounds, s.failedRounds])).toEqual([
      ["A", `url ${a!.url}`, 1, 0],
      ["B", `url ${b!.url}`, 1, 0]
    ])
    const pair = c.pairs[0]!
    expect([pair.baseline, pair.other]).toEqual(["A", "B"])
    const series = new Map(pair.series.map((s) => [s.label, s]))
    expect([...series.keys()].sort()).toEqual(["api_call GET configmaps resource replay/reads", "api_call LIST configmaps namespace replay/reads", "api_call PATCH configmaps resource replay/reads"])
    const get = series.get("api_call GET configmaps resource replay/reads")!
    expect([get.baseline.count, get.other.count, get.baseline.errors, get.other.errors]).toEqual([40, 40, 0, 0])
    expect([series.get("api_call LIST configmaps namespace replay/reads")!.other.count, series.get("api_call PATCH configmaps resource replay/reads")!.other.count]).toEqual([10, 1])
    // B answers 40 ms late: its median is at least that, and above A's by about that
    expect(get.other.p50).toBeGreaterThanOrEqual(40)
    expect(get.other.p50 - get.baseline.p50).toBeGreaterThan(30)
    const p50 = get.ratios.find((q) => q.quantile === "p50")!
    expect(p50.significant).toBe(true)
    expect(p50.low).toBeGreaterThan(1)
    expect(get.verdict).toMatch(/^B slower/)
    // the printed comparison and the HTML report
    expect(r.stdout).toContain("clustersim compare replay-compare")
    expect(r.stdout).toMatch(/api_call GET configmaps resource replay\/reads\n\s+A\s+40 /)
    expect(r.stdout).toContain(`comparison: ${join(out, "compare.json")}`)
    expect(existsSync(join(out, "compare.html"))).toBe(true)
  }, 60_000)
})
