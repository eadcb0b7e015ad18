import { describe, expect, it } from "@effect/vitest"
import { nodeInfoOf, podView, quantityOf, refreshNodeInfo } from "../../../simulator/scheduler/framework/Views.js"

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
