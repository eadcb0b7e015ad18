import { describe, expect, it } from "@effect/vitest"
import { filterNode, fitErrorMessage, numFeasibleNodesToFind } from "../../../simulator/scheduler/framework/Filters.js"
import { nodeInfoOf, podView } from "../../../simulator/scheduler/framework/Views.js"

const node = (name: string, opts: { cpu?: string; memory?: string; pods?: number; labels?: Record<string, string>; taints?: unknown[]; unschedulable?: boolean } = {}) =>
  nodeInfoOf({
    metadata: { name, labels: opts.labels ?? {} },
    spec: { ...(opts.taints ? { taints: opts.taints } : {}), ...(opts.unschedulable ? { unschedulable: true } : {}) },
    status: { allocatable: { cpu: opts.cpu ?? "4", memory: opts.memory ?? "8Gi", pods: String(opts.pods ?? 110) } }
  })

const pod = (name: string, spec: Record<string, unknown> = {}, requests: Record<string, string> = {}) =>
  podView({ metadata: { name, namespace: "default", uid: `uid-${name}` }, spec: { containers: [{ name: "c", resources: { requests } }], ...spec } })

describe("numFeasibleNodesToFind (adaptive)", () => {
  it("matches upstream's table", () => {
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

  it("FitError text: upstream's example, exactly", () => {
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
