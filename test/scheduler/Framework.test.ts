import { describe, expect, it } from "@effect/vitest"
import {
  backoffDuration,
  balancedAllocation,
  filterNode,
  fitErrorMessage,
  leastAllocated,
  nodeInfoOf,
  numFeasibleNodesToFind,
  podView,
  quantityOf,
  refreshNodeInfo,
  scoreNodes
} from "../../simulator/scheduler/Framework.js"
import { SchedulingQueue } from "../../simulator/scheduler/SchedulingQueue.js"

const node = (name: string, opts: { cpu?: string; memory?: string; pods?: number; labels?: Record<string, string>; taints?: unknown[]; unschedulable?: boolean } = {}) =>
  nodeInfoOf({
    metadata: { name, labels: opts.labels ?? {} },
    spec: { ...(opts.taints ? { taints: opts.taints } : {}), ...(opts.unschedulable ? { unschedulable: true } : {}) },
    status: { allocatable: { cpu: opts.cpu ?? "4", memory: opts.memory ?? "8Gi", pods: String(opts.pods ?? 110) } }
  })

const pod = (name: string, spec: Record<string, unknown> = {}, requests: Record<string, string> = {}) =>
  podView({ metadata: { name, namespace: "default", uid: `uid-${name}` }, spec: { containers: [{ name: "c", resources: { requests } }], ...spec } })

describe("podView", () => {
  it("sums requests with the non-zero defaults; views of pods sharing a containers array agree", () => {
    const containers = [
      { name: "a", resources: { requests: { cpu: "250m", memory: "1Gi" } } },
      { name: "b", resources: { requests: { memory: "1Mi" } } },
      { name: "c" }
    ]
    const tolerations = [{ key: "k", operator: "Exists" }]
    const first = podView({ metadata: { name: "p", namespace: "default" }, spec: { containers, tolerations } })
    const second = podView({ metadata: { name: "q", namespace: "default" }, spec: { containers, nodeName: "n" } })
    for (const v of [first, second]) {
      expect([v.cpu, v.memory, v.nonZeroCpu, v.nonZeroMemory]).toEqual([250, 2 ** 30 + 2 ** 20, 450, 2 ** 30 + 2 ** 20 + 200 * 2 ** 20])
      expect([v.nodeSelector, v.preferredTerms, v.requiredTerms]).toEqual([{}, [], undefined])
    }
    expect([first.tolerations, second.tolerations]).toEqual([tolerations, []])
    expect(podView({ metadata: { name: "r" }, spec: { tolerations: [null] } }).tolerations).toEqual([{}])
  })
})

describe("node infos", () => {
  it("quantities parse per unit: the same text in milli-units and in units", () => {
    expect([quantityOf("2", true), quantityOf("2", false), quantityOf("2", true)]).toEqual([2000, 2, 2000])
    expect([quantityOf("1Gi", false), quantityOf("bad", true), quantityOf(undefined, false)]).toEqual([2 ** 30, 0, 0])
  })

  it("a refresh reports only changes the filters read, keeps the usage, takes the new fields", () => {
    const labels = { zone: "a" }
    const taints = [{ key: "k", value: "v", effect: "NoSchedule" }]
    const obj = (over: { labels?: Record<string, string>; taints?: unknown[]; cpu?: string; unschedulable?: boolean } = {}) => ({
      metadata: { name: "n", labels: over.labels ?? labels },
      spec: { taints: over.taints ?? taints, ...(over.unschedulable ? { unschedulable: true } : {}) },
      status: { allocatable: { cpu: over.cpu ?? "4", memory: "8Gi", pods: "110" }, conditions: [] }
    })
    const info = nodeInfoOf(obj(), { reqCpu: 500, reqMemory: 1, nonZeroCpu: 600, nonZeroMemory: 2, pods: 3 })
    expect([info.reqCpu, info.reqMemory, info.nonZeroCpu, info.nonZeroMemory, info.pods]).toEqual([500, 1, 600, 2, 3])
    // A status write: new status object, same labels and taints (or equal copies).
    expect(refreshNodeInfo(info, obj())).toBe(false)
    expect(refreshNodeInfo(info, obj({ labels: { zone: "a" }, taints: [{ key: "k", value: "v", effect: "NoSchedule" }] }))).toBe(false)
    expect(refreshNodeInfo(info, obj({ labels: { zone: "b" } }))).toBe(true)
    expect(info.labels).toEqual({ zone: "b" })
    expect(refreshNodeInfo(info, obj({ labels: { zone: "b", extra: "x" } }))).toBe(true)
    expect(refreshNodeInfo(info, obj({ labels: { zone: "b", extra: "x" }, taints: [{ key: "k", value: "v", effect: "NoExecute" }] }))).toBe(true)
    expect(refreshNodeInfo(info, obj({ labels: { zone: "b", extra: "x" }, taints: [] }))).toBe(true)
    expect(refreshNodeInfo(info, obj({ labels: { zone: "b", extra: "x" }, taints: [], cpu: "8" }))).toBe(true)
    expect(refreshNodeInfo(info, obj({ labels: { zone: "b", extra: "x" }, taints: [], cpu: "8", unschedulable: true }))).toBe(true)
    expect([info.allocCpu, info.unschedulable, info.taints]).toEqual([8000, true, []])
    expect([info.reqCpu, info.pods]).toEqual([500, 3])
  })
})

describe("numFeasibleNodesToFind (adaptive)", () => {
  it("matches the reference's table", () => {
    expect(numFeasibleNodesToFind(50)).toBe(50)
    expect(numFeasibleNodesToFind(150)).toBe(100)
    expect(numFeasibleNodesToFind(1000)).toBe(420)
    expect(numFeasibleNodesToFind(5000)).toBe(500)
    expect(numFeasibleNodesToFind(6000)).toBe(300)
    expect(numFeasibleNodesToFind(1000, 10)).toBe(100)
    expect(numFeasibleNodesToFind(1000, 100)).toBe(1000)
  })
})

describe("filters", () => {
  it("NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodeResourcesFit reasons", () => {
    expect(filterNode(pod("p"), node("n", { unschedulable: true }))).toEqual(["node(s) were unschedulable"])
    expect(filterNode(pod("p", { nodeName: "other" }), node("n"))).toEqual(["node(s) didn't match the requested node name"])
    expect(filterNode(pod("p"), node("n", { taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] }))).toEqual([
      "node(s) had untolerated taint {dedicated: gpu}"
    ])
    expect(
      filterNode(pod("p", { tolerations: [{ key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule" }] }), node("n", { taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] }))
    ).toEqual([])
    expect(filterNode(pod("p"), node("n", { taints: [{ key: "soft", value: "", effect: "PreferNoSchedule" }] }))).toEqual([])
    expect(filterNode(pod("p", { nodeSelector: { disk: "ssd" } }), node("n"))).toEqual(["node(s) didn't match Pod's node affinity/selector"])
    expect(filterNode(pod("p", { nodeSelector: { disk: "ssd" } }), node("n", { labels: { disk: "ssd" } }))).toEqual([])
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["a", "b"] }] }, { matchFields: [{ key: "metadata.name", operator: "In", values: ["special"] }] }]
        }
      }
    }
    expect(filterNode(pod("p", { affinity }), node("n", { labels: { zone: "b" } }))).toEqual([])
    expect(filterNode(pod("p", { affinity }), node("special"))).toEqual([])
    expect(filterNode(pod("p", { affinity }), node("n", { labels: { zone: "c" } }))).toEqual(["node(s) didn't match Pod's node affinity/selector"])
    const full = node("n", { cpu: "1", memory: "1Gi", pods: 0 })
    expect(filterNode(pod("p", {}, { cpu: "2", memory: "2Gi" }), full)).toEqual(["Too many pods", "Insufficient cpu", "Insufficient memory"])
  })

  it("FitError text: the reference's example, exactly", () => {
    const unreachable = node("a", { taints: [{ key: "node.platform.io/unreachable", effect: "NoSchedule" }] })
    const small = [node("b", { cpu: "1" }), node("c", { cpu: "1" })]
    const p = pod("p", {}, { cpu: "2" })
    const reasons = [unreachable, ...small].map((n) => filterNode(p, n))
    expect(fitErrorMessage(3, reasons)).toBe(
      "0/3 nodes are available: 1 node(s) had untolerated taint {node.platform.io/unreachable: }, 2 Insufficient cpu. " +
        "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.."
    )
  })
})

describe("scores", () => {
  it("LeastAllocated on non-zero requests; BalancedAllocation on requests", () => {
    const n = node("n", { cpu: "4", memory: "8Gi" })
    // cpu (4000−1000)/4000 = 75, memory (8Gi−2Gi)/8Gi = 75
    expect(leastAllocated(pod("p", {}, { cpu: "1", memory: "2Gi" }), n)).toBe(75)
    // No requests: 100m and 200Mi defaults → cpu 97, memory 97 (floor)
    expect(leastAllocated(pod("p"), n)).toBe(97)
    // cpu 1/4 = 0.25, memory 4/8 = 0.5 → std 0.125 → 87
    expect(balancedAllocation(pod("p", {}, { cpu: "1", memory: "4Gi" }), n)).toBe(87)
  })
  it("weights: TaintToleration 3 prefers nodes without PreferNoSchedule taints", () => {
    const tainted = node("t", { taints: [{ key: "soft", value: "", effect: "PreferNoSchedule" }] })
    const clean = node("c")
    const [t, c] = scoreNodes(pod("p", {}, { cpu: "1", memory: "2Gi" }), [tainted, clean])
    expect(c! - t!).toBe(300)
  })
})

describe("SchedulingQueue", () => {
  it("backoff 1, 2, 4, 8, 10, 10 s", () => {
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffDuration(a))).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000])
  })
  it("priority then FIFO; failures go to unschedulable unless a move request happened; moves respect backoff", () => {
    const q = new SchedulingQueue()
    q.add(pod("low"), 0)
    q.add(pod("high", { priority: 10 }), 1)
    q.add(pod("low2"), 2)
    expect([q.pop()!.key, q.pop()!.key]).toEqual(["default/high", "default/low"])
    const low2 = q.pop()!
    q.requeueUnschedulable(low2, q.schedulingCycle, 100)
    expect(q.counts()).toEqual({ active: 0, backoff: 0, unschedulable: 1 })
    // A cluster event 500 ms later: still backing off (1 s from the failure) → backoffQ, then active after 1 s.
    q.moveAllToActiveOrBackoff(600)
    expect(q.counts()).toEqual({ active: 0, backoff: 1, unschedulable: 0 })
    expect(q.flushBackoffCompleted(1099)).toBe(0)
    expect(q.flushBackoffCompleted(1100)).toBe(1)
    const again = q.pop()!
    expect(again.attempts).toBe(2)
    // The move request came after this cycle began? No: cycle moved on, so it goes unschedulable again.
    q.requeueUnschedulable(again, q.schedulingCycle, 2000)
    expect(q.counts().unschedulable).toBe(1)
    // Leftover flush after 5 min.
    expect(q.flushUnschedulableLeftover(2000 + 300_000)).toBe(0)
    expect(q.flushUnschedulableLeftover(2000 + 300_001)).toBe(1)
  })
})
