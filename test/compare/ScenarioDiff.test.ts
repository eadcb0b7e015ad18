import { describe, expect, it } from "@effect/vitest"
import { compareClusters, notReadyOverTime } from "../../src/compare/ClusterComparison.js"
import { clusterChange, clusterValue } from "../../reports/compareWhatIf.js"
import { compareSides, refusal, type Side } from "../../src/compare/Compare.js"
import { effectiveScenario, scenarioDifferences } from "../../src/compare/ScenarioDiff.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"
import { makeHistogram, encodeHistogram, type MetricKey, recordMillis } from "../../src/loadgen/LatencyRecorder.js"
import { syntheticRun } from "../support/syntheticRun.js"

const text = "apiVersion: clustersim/v1\nkind: Scenario\nmetadata: { name: s }\ncluster: { nodes: 20 }\nphases: []\n"

/** A run of `text`, with `--set` overrides recorded as `run` records them. */
const run = (o: { seed: number; sets?: ReadonlyArray<string>; effective?: unknown; cluster?: Record<string, unknown>; podStartupMs?: number }): RunArtifact => {
  const startup: MetricKey = { metric: "pod_startup", operation: "start", resource: "pods", scope: "namespace", name: "without-image-pulls" }
  const base = syntheticRun({ seed: o.seed, series: o.podStartupMs !== undefined ? [{ key: startup, medianMs: o.podStartupMs, sigma: 0.01, samples: 200 }] : [] })
  return {
    ...base,
    scenario: {
      ...base.scenario,
      name: "s",
      file: "s.yaml",
      text,
      ...(o.effective !== undefined ? { effective: o.effective } : {}),
      ...(o.sets ? { sets: o.sets } : {})
    },
    ...(o.cluster ? { cluster: o.cluster } : {})
  }
}
const plain = { apiVersion: "clustersim/v1", kind: "Scenario", metadata: { name: "s" }, cluster: { nodes: 20 }, phases: [] }
const apfOff = { ...plain, cluster: { nodes: 20, serviceTime: { apf: false } } }

describe("scenario differences", () => {
  it("lists the differing leaves: a value changed, one set on one side only, a list item", () => {
    expect(scenarioDifferences(plain, { ...apfOff, cluster: { ...apfOff.cluster, nodes: 5000 }, phases: [{ name: "p" }] })).toEqual([
      { path: "cluster.nodes", baseline: "20", other: "5000" },
      { path: "cluster.serviceTime.apf", baseline: "(not set)", other: "false" },
      { path: "phases[0]", baseline: "(not set)", other: '{"name":"p"}' }
    ])
    expect(scenarioDifferences({ a: { b: true } }, { a: { b: false } })).toEqual([{ path: "a.b", baseline: "true", other: "false" }])
  })

  it("an artifact from before the effective scenario was recorded is read from its text", () => {
    expect(effectiveScenario(run({ seed: 1 }))).toEqual(plain)
  })

  it("refuses runs of one file with different --set values, naming the differing field; --allow-different compares them", () => {
    const a: Side = { label: "A", rounds: [run({ seed: 1, effective: plain })] }
    const b: Side = { label: "B", rounds: [run({ seed: 2, effective: apfOff, sets: ["cluster.serviceTime.apf=false"] })] }
    expect(refusal([a, b])).toBe(
      'runs of different scenarios: A ran "s" (s.yaml, sha256 aaaaaaaaaaaa…), B ran "s" (s.yaml, sha256 aaaaaaaaaaaa…, --set cluster.serviceTime.apf=false); ' +
        'differing fields: cluster.serviceTime.apf: (not set) → false; a comparison of unlike workloads says nothing about the servers — ' +
        "to compare the scenarios themselves (a what-if), use clustersim compare --allow-different"
    )
    const r = compareSides([a, b], { allowDifferent: true })
    if (r._tag !== "Compared") throw new Error(r.reason)
    expect(r.comparison.differentScenarios).toBe(true)
    expect(r.comparison.sides.map((s) => s.sets)).toEqual([undefined, ["cluster.serviceTime.apf=false"]])
    expect(r.comparison.pairs[0]!.differences).toEqual([{ path: "cluster.serviceTime.apf", baseline: "(not set)", other: "false" }])
    // the same file and no overrides: one scenario, nothing listed
    const same = compareSides([a, { label: "B", rounds: [run({ seed: 3 })] }])
    if (same._tag !== "Compared") throw new Error(same.reason)
    expect(same.comparison.differentScenarios).toBeUndefined()
    expect(same.comparison.pairs[0]!.differences).toBeUndefined()
  })

  it("a side's rounds must be runs of one scenario even with --allow-different", () => {
    const a: Side = { label: "A", rounds: [run({ seed: 1 })] }
    const b: Side = { label: "B", rounds: [run({ seed: 2 }), run({ seed: 3, effective: apfOff, sets: ["cluster.serviceTime.apf=false"] })] }
    expect(refusal([a, b], true)).toBe(
      'side B mixes scenarios: round 1 ran "s" (s.yaml, sha256 aaaaaaaaaaaa…), round 2 ran "s" (s.yaml, sha256 aaaaaaaaaaaa…, --set cluster.serviceTime.apf=false); ' +
        'differing fields: cluster.serviceTime.apf: (not set) → false'
    )
  })
})

describe("cluster figures side by side", () => {
  it("not-ready nodes over time: counted from each node's first Ready, the most at once and the time-weighted mean", () => {
    const timeline = {
      // registers NotReady, Ready at 1 s: not counted before
      "node-0": [[0, "False"], [1000, "True"], [4000, "Unknown"], [8000, "True"]],
      "node-1": [[0, "True"], [6000, "Unknown"]],
      "node-2": [[0, "True"]]
    } as const
    // 4–6 s: 1 node, 6–8 s: 2, 8–10 s: 1 → (2 + 4 + 2) / 10
    expect(notReadyOverTime(timeline as never, 10_000)).toEqual({ max: 2, timeWeightedMean: 0.8, leftReady: 2 })
    expect(notReadyOverTime({}, 10_000)).toEqual({ max: 0, timeWeightedMean: 0, leftReady: 0 })
  })

  it("reads lease latency, Ready, APF levels and pod start-up from the artifacts; a side without APF has no level figures", () => {
    const lease = (ms: number) => {
      const h = makeHistogram()
      for (let i = 0; i < 100; i++) recordMillis(h, ms)
      return { hdr: encodeHistogram(h) }
    }
    const level = (rejected: number) => ({ dispatched: 10, rejected, queueWaitMs: { p50: 1, p99: 40 } })
    const on = run({
      seed: 1,
      podStartupMs: 800,
      cluster: {
        durationMs: 10_000,
        heartbeats: { leaseWrites: 10, failedAttempts: 0, perSecond: 1 },
        leaseRenewLatency: lease(20),
        readyTimeline: { "node-0": [[0, "True"]] },
        serverModel: { parameters: { apf: true }, priorityLevels: { exempt: { dispatched: 0, rejected: 0 }, "global-default": level(120) } }
      }
    })
    const off = run({
      seed: 2,
      podStartupMs: 3000,
      cluster: {
        durationMs: 10_000,
        heartbeats: { leaseWrites: 5, failedAttempts: 1, perSecond: 0.5 },
        leaseRenewLatency: lease(2000),
        readyTimeline: { "node-0": [[0, "True"], [5000, "Unknown"]] },
        serverModel: { parameters: { apf: false } }
      }
    })
    const c = compareClusters([on], [off])!
    expect(c.admission).toEqual({ baseline: "APF on", other: "APF off (two inflight pools, no 429s)" })
    const row = (label: string) => c.rows.find((r) => r.label === label)
    expect(row("lease renew latency p99")).toMatchObject({ unit: "ms", baseline: expect.closeTo(20, 0), other: expect.closeTo(2000, -1) })
    expect(row("not-ready nodes, most at once")).toEqual({ label: "not-ready nodes, most at once", unit: "nodes", baseline: 0, other: 1 })
    expect(row("not-ready nodes, time-weighted mean")).toEqual({ label: "not-ready nodes, time-weighted mean", unit: "nodes", baseline: 0, other: 0.5 })
    expect(row("APF global-default 429s")).toEqual({ label: "APF global-default 429s", unit: "count", baseline: 120 })
    expect(row("APF global-default queue wait p99")).toEqual({ label: "APF global-default queue wait p99", unit: "ms", baseline: 40 })
    expect(row("pod startup p99 (without-image-pulls)")).toMatchObject({ unit: "ms", baseline: expect.closeTo(820, -2), other: expect.closeTo(3070, -2) })
    expect(row("pods started (without-image-pulls)")).toMatchObject({ unit: "count", baseline: 200, other: 200 })
    // lease figures first, then Ready, then APF, then the rest, whichever side has them
    expect(c.rows.map((r) => r.label)).toEqual([
      "lease renew latency p50",
      "lease renew latency p99",
      "lease renew latency max",
      "lease writes",
      "lease renew failures",
      "not-ready nodes, most at once",
      "not-ready nodes, time-weighted mean",
      "nodes that left Ready",
      "APF global-default 429s",
      "APF global-default dispatched",
      "APF global-default queue wait p50",
      "APF global-default queue wait p99",
      "node-agent requests given up",
      "pod startup p50 (without-image-pulls)",
      "pod startup p99 (without-image-pulls)",
      "pods started (without-image-pulls)"
    ])
    // a level idle on both sides is left out
    expect(c.rows.some((r) => r.label.includes("exempt"))).toBe(false)
    expect(compareClusters([run({ seed: 1 })], [run({ seed: 2 })])).toBeUndefined()
  })

  it("puts the relists' modelled peak server memory side by side, in bytes, with the reads of each kind", () => {
    const memory = (peakBytes: number, lists: number, watchLists: number) => ({
      durationMs: 70_000,
      serverModel: { parameters: { apf: true }, relistMemory: { peakBytes, peakAtMs: 19_001, atPeak: { lists: 4, watchLists: 0 }, lists: { count: lists, largestBytes: 1 }, watchLists: { count: watchLists, largestBytes: 1 } } }
    })
    const c = compareClusters([run({ seed: 1, cluster: memory(66_582_240, 100, 0) })], [run({ seed: 1, cluster: memory(678_224, 0, 100) })])!
    const row = (label: string) => c.rows.find((r) => r.label === label)
    expect(row("relist server memory peak (modelled)")).toEqual({ label: "relist server memory peak (modelled)", unit: "bytes", baseline: 66_582_240, other: 678_224 })
    expect(clusterValue(row("relist server memory peak (modelled)")!, 66_582_240)).toBe("63.5 MiB")
    expect(clusterValue(row("relist server memory peak (modelled)")!, 678_224)).toBe("662.3 KiB")
    expect(clusterChange(row("relist server memory peak (modelled)")!)).toBe("×0.01")
    expect([row("relist LISTs"), row("relist WatchLists")]).toEqual([
      { label: "relist LISTs", unit: "count", baseline: 100, other: 0 },
      { label: "relist WatchLists", unit: "count", baseline: 0, other: 100 }
    ])
  })
})
