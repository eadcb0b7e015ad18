import { describe, expect, it } from "@effect/vitest"
import { renderLatencySvg } from "../../reports/plot.js"
import { formatMs, renderCluster, renderSections, renderSummary, renderTokenRecovery, table } from "../../reports/summary.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"
import { encodeHistogram, makeHistogram, summarize } from "../../src/loadgen/LatencyRecorder.js"

const h = makeHistogram()
for (const us of [500, 1000, 2000, 150_000]) h.recordValue(us)
const key = { metric: "api_call", operation: "GET", resource: "configmaps", scope: "resource" }
const artifact: RunArtifact = {
  format: "clustersim/run-v1",
  scenario: { name: "demo", file: "demo.yaml", sha256: "x", text: "" },
  target: { kind: "embedded", url: "http://127.0.0.1:1234" },
  seed: 1,
  environment: { node: "v20", platform: "linux", arch: "x64", cpus: 2, cpuModel: "cpu", totalMemoryBytes: 1 },
  startedAt: "2026-01-01T00:00:00.000Z",
  endedAt: "2026-01-01T00:00:02.000Z",
  durationMs: 2000,
  partial: false,
  outcome: "thresholds-breached",
  exitCode: 99,
  series: [
    {
      key,
      models: ["open"],
      count: 4,
      errors: 1,
      dropped: 2,
      outOfRange: 0,
      latency: summarize(h),
      serviceTime: summarize(h),
      latencyHistogram: encodeHistogram(h),
      serviceTimeHistogram: encodeHistogram(h)
    }
  ],
  intervalMs: 1000,
  intervals: [0, 1].map((i) => ({
    key,
    index: i,
    startMs: i * 1000,
    endMs: (i + 1) * 1000,
    latency: summarize(h),
    serviceTime: summarize(h),
    errors: 0,
    dropped: 0,
    latencyHistogram: encodeHistogram(h),
    serviceTimeHistogram: encodeHistogram(h)
  })),
  errors: { total: 1, messages: [{ message: "get: 404 NotFound", count: 1 }] },
  actions: [],
  relists: 3,
  thresholds: [
    { threshold: "latency{operation:GET}", condition: "p(99) < 1ms", group: {}, observed: 150.1, series: 1, noData: false, passed: false }
  ]
}

describe("reports", () => {
  it("formats durations with three significant figures, keeping integer zeros", () => {
    expect([0, 0.15, 0.0005, 1.5, 150, 1530, 12_345].map(formatMs)).toEqual(["0", "150µs", "0.5µs", "1.5ms", "150ms", "1.53s", "12.3s"])
  })

  it("aligns tables: text left, numbers right", () => {
    expect(table([["a", "n"], ["long", "1"], ["b", "100"]])).toBe("a       n\nlong    1\nb     100")
  })

  it("renders the summary from the artifact alone", () => {
    const text = renderSummary(artifact)
    expect(text).toContain("clustersim run demo — target embedded http://127.0.0.1:1234, seed 1, 2s")
    expect(text).toMatch(/api_call GET configmaps resource\s+open\s+4\s+1ms\s+150ms\s+150ms\s+150ms\s+1\s+2/)
    expect(text).toContain("relists: 3   errors: 1")
    expect(text).toContain("✗ latency{operation:GET}: p(99) < 1ms (observed 150.100 ms)")
    expect(text).toContain("FAIL: thresholds breached (exit 99)")
  })

  it("a threshold without data fails as no data; one that allows no data passes and says so", () => {
    const noData = { group: {}, observed: undefined, series: 0, noData: true }
    const text = renderSummary({
      ...artifact,
      thresholds: [
        { ...noData, threshold: "latency{metric:api_call,operation:LIST}", condition: "p(99) < 1s", passed: false },
        { ...noData, threshold: "latency{metric:relist}", condition: "p(99) < 30s", passed: true }
      ]
    })
    expect(text).toContain("  ✗ latency{metric:api_call,operation:LIST}: p(99) < 1s (observed no data)\n")
    expect(text).toContain("  ✓ latency{metric:relist}: p(99) < 30s (observed no data, allowed)\n")
  })

  it("plots p50 and p99 per key as SVG polylines", () => {
    const svg = renderLatencySvg(artifact)
    expect(svg.startsWith("<svg")).toBe(true)
    expect(svg.match(/<polyline/g)?.length).toBe(2)
    expect(svg).toContain("api_call GET configmaps resource")
  })
})

describe("renderCluster", () => {
  it("shows scale, heartbeats, Ready changes, taints, deletions and events of a simulated cluster", () => {
    const lines = renderCluster({
      nodes: 3,
      pods: 6,
      durationMs: 600_000,
      heartbeats: { leaseWrites: 170, perSecond: 0.2833, failedAttempts: 2 },
      nodeStatus: { checks: 168, patches: 6 },
      leaseRenewLatency: { p50: 2.004, p99: 3.01 },
      readyTimeline: { "node-0": [[3000, "True", "NodeAgentReady"]], "node-1": [[4000, "True", "NodeAgentReady"], [165_000, "Unknown", "NodeStatusUnknown"]] },
      taints: [{}, {}],
      podDeletions: [{}],
      evictions: [],
      events: { byReason: { RegisteredNode: 3, NodeNotReady: 3 } },
      wall: { ms: 120, virtualPerReal: 5000 }
    })
    expect(lines).toEqual([
      "simulated cluster: 3 nodes, 6 pods, 10m00s of virtual time in 120ms (5000× real time)",
      "  leases: 170 writes (0.3/s), 2 failed attempts; renew latency p50 2ms, p99 3.01ms",
      "  node status: 168 checks, 6 patches",
      "  Ready nodes: 1 of 3 at the end, fewest 1 at 2m45s",
      "  node-1: Ready True@4s → Unknown@2m45s",
      "  taint changes: 2   pod deletions: 1   evictions: 0",
      "  events: NodeNotReady 3, RegisteredNode 3"
    ])
  })

  it("labels the latencies of a simulated run as modelled and shows the model's parameters and the busy priority levels", () => {
    const lines = renderCluster({
      nodes: 1,
      pods: 0,
      durationMs: 60_000,
      heartbeats: { leaseWrites: 6, perSecond: 0.1, failedAttempts: 0 },
      nodeStatus: { checks: 6, patches: 0 },
      leaseRenewLatency: { p50: 2, p99: 2 },
      readyTimeline: {},
      taints: [],
      podDeletions: [],
      evictions: [],
      events: { byReason: {} },
      serverModel: {
        modelled: true,
        parameters: { readBaseMs: 1, writeBaseMs: 2, perObjectMs: 0.005, perKiBMs: 0.01, maxRequestsInflight: 400, maxMutatingRequestsInflight: 200, apf: true },
        priorityLevels: {
          "node-high": { seats: 98, dispatched: 6, rejected: 0, queueWaitMs: { p99: 0 } },
          "global-default": { seats: 49, dispatched: 10, rejected: 4, queueWaitMs: { p99: 1500 } },
          "catch-all": { seats: 13, dispatched: 0, rejected: 0, queueWaitMs: { p99: 0 } }
        }
      }
    })
    expect(lines).toEqual([
      "simulated cluster: 1 node, 0 pods, 1m00s of virtual time",
      "  leases: 6 writes (0.1/s), 0 failed attempts; renew latency (modelled) p50 2ms, p99 2ms",
      "  node status: 6 checks, 0 patches",
      "  taint changes: 0   pod deletions: 0   evictions: 0",
      "  server model (latencies are modelled, not measured): read 1 ms, write 2 ms, 0.005 ms/object, 0.01 ms/KiB, 400 + 200 inflight, APF on",
      "    node-high (node agents' Node and Lease requests): 98 seats, 6 dispatched, 0 rejected, queue wait p99 0",
      "    global-default (every other user: the load, components without an identity of their own): 49 seats, 10 dispatched, 4 rejected (429), queue wait p99 1.5s",
      "  APF rejected 4 requests with 429 (global-default 4); clients retried each after Retry-After (1 s, up to 10 times): no node-agent request was given up, no load request failed; node leases (node-high) were never rejected"
    ])
  })

  it("a calibrated model shows its shared pool and its spread", () => {
    const lines = renderCluster({
      nodes: 1,
      pods: 0,
      durationMs: 60_000,
      heartbeats: { leaseWrites: 6, perSecond: 0.1, failedAttempts: 0 },
      nodeStatus: { checks: 6, patches: 0 },
      leaseRenewLatency: { p50: 2, p99: 2 },
      readyTimeline: {},
      taints: [],
      podDeletions: [],
      evictions: [],
      events: { byReason: {} },
      serverModel: {
        modelled: true,
        parameters: { readBaseMs: 1, writeBaseMs: 2, perObjectMs: 0.005, perKiBMs: 0.01, maxRequestsInflight: 400, maxMutatingRequestsInflight: 200, apf: false, sharedSeats: 1, readDispersion: 3.5 }
      }
    })
    expect(lines).toContain(
      "  server model (latencies are modelled, not measured): read 1 ms, write 2 ms, 0.005 ms/object, 0.01 ms/KiB, 1 seats shared by reads and writes, APF off, p99 ÷ p50 read 3.5 write 1"
    )
  })
})

describe("renderSections", () => {
  it("shows binds and failover time of the scheduler section and the evictions of the eviction section", () => {
    expect(
      renderSections({
        scheduler: { podsCreated: 12, binds: 10, leaseTransitions: 1, failover: { killedAtMs: 60_000, leaderLostToNewLeaderMs: 16_628.6, newLeaderToFirstBindMs: 0 } },
        eviction: { evictions: [{ atMs: 390_000, pod: "default/leaky", signal: "memory.available" }] }
      })
    ).toEqual([
      "scheduler: bound 10 of the 12 pods it created, 1 leader transition",
      "  failover: leader killed at 1m00s, new leader after 16.6s, its first bind at once",
      "eviction: 1 pod evicted",
      "  6m30s default/leaky (memory.available)"
    ])
  })
})

describe("renderTokenRecovery", () => {
  it("after an expire-tokens step: each client's 401s, first 401, recovery and lost requests", () => {
    expect(
      renderTokenRecovery([
        { phase: "rotate", action: "writer", type: "constant-arrival-rate", tokens: { unauthorized: 1, firstUnauthorizedMs: 50, recoveredMs: 150, lost: 1 } },
        { phase: "rotate", action: "informers", type: "informers", tokens: { unauthorized: 2, firstUnauthorizedMs: 50, lost: 0 } },
        { phase: "rotate", action: "watchers", type: "watch", tokens: { unauthorized: 0, lost: 0 } },
        { phase: "rotate", action: "expire", type: "expire-tokens", counts: { credentialsExpired: 1 } }
      ])
    ).toEqual([
      "expired tokens (times from the expiry):",
      `  rotate/writer: 1× 401, first after ${formatMs(50)}, recovered after ${formatMs(150)}, 1 request lost`,
      `  rotate/informers: 2× 401, first after ${formatMs(50)}, NOT RECOVERED, 0 requests lost`,
      "  rotate/watchers: no 401 (not affected)"
    ])
    expect(renderTokenRecovery([])).toEqual([])
  })
})
