/**
 * A what-if end to end, in process: one small simulated cluster run twice — APF on (the file), then off through
 * `--set` — and `compare --allow-different` printing the differing field and both sides' cluster figures.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import type { Comparison } from "../../src/compare/Compare.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"
import { captureMain } from "../support/captureMain.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-whatif-"))

// 10 nodes on a server of 2 mutating seats, 20 ms a write; a patch flood of 120/s for 6 s of 10 s virtual time
const scenario = join(dir, "apf-what-if.yaml")
writeFileSync(
  scenario,
  `apiVersion: clustersim/v1
kind: Scenario
metadata:
  name: apf-what-if
seed: 7
duration: 10s
cluster:
  nodes: \${WHATIF_TEST_NODES:-10}
  startSpread: 1s
  nodeLifecycle: { monitorPeriod: 2s, gracePeriod: 8s, startupGracePeriod: 10s }
  serviceTime: { writeBaseMs: 20, maxRequestsInflight: 4, maxMutatingRequestsInflight: 2 }
setup:
  objects:
    - { name: flood, resource: configmaps, count: 5 }
phases:
  - name: storm
    duration: 6s
    actions:
      - { type: constant-arrival-rate, name: patch-flood, rate: 120, maxInFlight: 100000, request: { verb: patch, objects: flood } }
thresholds:
  "errors{metric:setup}": ["rate == 0"]
`
)

const capture = (args: ReadonlyArray<string>) => captureMain(args)
afterEach(() => void vi.restoreAllMocks())

/** The cells of a row of the cluster table: label, A, B, change. */
const clusterRow = (out: string, label: string): Array<string> => {
  const line = out.split("\n").find((l) => l.trim().startsWith(label))
  if (line === undefined) throw new Error(`no "${label}" row in:\n${out}`)
  return [label, ...line.trim().slice(label.length).trim().split(/\s{2,}/)]
}

describe("a what-if: APF on against APF off through --set", () => {
  it("runs both, refuses to compare them without --allow-different, and with it prints the field and both sides' cluster figures", async () => {
    const on = await capture(["run", scenario, "--out", join(dir, "on")])
    expect(on.code).toBe(0)
    const off = await capture(["run", scenario, "--set", "cluster.serviceTime.apf=false", "--out", join(dir, "off")])
    expect(off.code).toBe(0)
    const artifact = JSON.parse(readFileSync(join(dir, "off", "run.json"), "utf8")) as RunArtifact
    expect(artifact.scenario.sets).toEqual(["cluster.serviceTime.apf=false"])
    expect(artifact.scenario.variables).toEqual(["WHATIF_TEST_NODES"])
    expect((artifact.scenario.effective as { cluster: unknown }).cluster).toEqual({
      nodes: 10,
      startSpread: "1s",
      nodeLifecycle: { monitorPeriod: "2s", gracePeriod: "8s", startupGracePeriod: "10s" },
      serviceTime: { writeBaseMs: 20, maxRequestsInflight: 4, maxMutatingRequestsInflight: 2, apf: false }
    })

    const refused = await capture(["compare", join(dir, "on", "run.json"), join(dir, "off", "run.json"), "--out", join(dir, "refused")])
    expect(refused.code).toBe(2)
    expect(refused.err).toContain("differing fields: cluster.serviceTime.apf: (not set) → false;")
    expect(refused.err).toContain("use clustersim compare --allow-different")

    const r = await capture(["compare", join(dir, "on", "run.json"), join(dir, "off", "run.json"), "--allow-different", "--out", join(dir, "compare")])
    expect(r.err).toBe("")
    expect(r.code).toBe(0)
    expect(r.out).toContain("clustersim compare: different scenarios (a what-if)")
    expect(r.out).toContain("     apf-what-if (" + scenario + ") --set cluster.serviceTime.apf=false\n")
    expect(r.out).toContain("  scenario fields that differ (A → B):\n    cluster.serviceTime.apf: (not set) → false\n")
    expect(r.out).toContain("  cluster (A APF on; B APF off (two inflight pools, no 429s)):")
    expect(clusterRow(r.out, "figure")).toEqual(["figure", "A", "B", "change"])
    // both sides' figures: lease renewals starve behind the flood without APF; APF answers the flood's level with 429s
    const p99 = clusterRow(r.out, "lease renew latency p99")
    expect(p99).toHaveLength(4)
    expect(p99[3]).toMatch(/^×\d/)
    expect(clusterRow(r.out, "not-ready nodes, most at once")).toEqual(["not-ready nodes, most at once", "0", "0", "="])
    expect(clusterRow(r.out, "not-ready nodes, time-weighted mean")).toEqual(["not-ready nodes, time-weighted mean", "0", "0", "="])
    const rejected = clusterRow(r.out, "APF global-default 429s")
    expect(Number(rejected[1])).toBeGreaterThan(0)
    expect(rejected.slice(2)).toEqual(["—"])
    expect(clusterRow(r.out, "APF node-high 429s").slice(1)).toEqual(["0", "—"])

    const comparison = JSON.parse(readFileSync(join(dir, "compare", "compare.json"), "utf8")) as Comparison
    const rows = comparison.pairs[0]!.cluster!.rows
    const lease = rows.find((x) => x.label === "lease renew latency p99")!
    expect(lease.other!).toBeGreaterThan(10 * lease.baseline!)
    const html = readFileSync(join(dir, "compare", "compare.html"), "utf8")
    expect(html).toContain("<h2>Scenario fields that differ, B vs A</h2>")
    expect(html).toContain("<td>cluster.serviceTime.apf</td><td>(not set)</td><td>false</td>")
    expect(html).toContain("<h2>Cluster, B vs A</h2>")
    expect(html).toContain("<td>APF global-default 429s</td>")
  }, 60_000)
})
