import { describe, expect, it } from "@effect/vitest"
import { balancedAllocation, leastAllocated, scoreNodes } from "../../../simulator/scheduler/framework/Scores.js"
import { nodeInfoOf, podView } from "../../../simulator/scheduler/framework/Views.js"

const node = (name: string, opts: { cpu?: string; memory?: string; pods?: number; labels?: Record<string, string>; taints?: unknown[]; unschedulable?: boolean } = {}) =>
  nodeInfoOf({
    metadata: { name, labels: opts.labels ?? {} },
    spec: { ...(opts.taints ? { taints: opts.taints } : {}), ...(opts.unschedulable ? { unschedulable: true } : {}) },
    status: { allocatable: { cpu: opts.cpu ?? "4", memory: opts.memory ?? "8Gi", pods: String(opts.pods ?? 110) } }
  })

const pod = (name: string, spec: Record<string, unknown> = {}, requests: Record<string, string> = {}) =>
  podView({ metadata: { name, namespace: "default", uid: `uid-${name}` }, spec: { containers: [{ name: "c", resources: { requests } }], ...spec } })

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
