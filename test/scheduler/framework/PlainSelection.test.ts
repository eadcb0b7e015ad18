import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import type { KObject } from "../../../src/api/Object.js"
import { numFeasibleNodesToFind } from "../../../simulator/scheduler/framework/Filters.js"
import { selectPlainNode } from "../../../simulator/scheduler/framework/PlainSelection.js"
import { selectNode, type Selection } from "../../../simulator/scheduler/framework/Selection.js"
import { addPodToNodeInfo, nodeInfoOf, type NodeInfo, podView } from "../../../simulator/scheduler/framework/Views.js"
import { makeSchedulerCore } from "../../../simulator/scheduler/Scheduler.js"
import { make as makeRandom } from "../../../simulator/kernel/SeededRandom.js"
import { runSim } from "../sim.js"

/** A small LCG: the clusters and pods below, per seed. */
const lcg = (seed: number) => {
  let state = seed
  const rand = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31
    return Math.floor((state / 2 ** 31) * n)
  }
  return { rand, pick: <A>(xs: ReadonlyArray<A>): A => xs[rand(xs.length)]! }
}

const taintChoices: ReadonlyArray<ReadonlyArray<Record<string, string>>> = [
  [],
  [],
  [],
  [{ key: "dedicated", value: "db", effect: "NoSchedule" }],
  [{ key: "soft", value: "", effect: "PreferNoSchedule" }],
  [{ key: "node.platform.io/unreachable", value: "", effect: "NoExecute" }],
  [{ key: "soft", value: "", effect: "PreferNoSchedule" }, { key: "dedicated", value: "db", effect: "NoSchedule" }]
]
const tolerationChoices: ReadonlyArray<ReadonlyArray<Record<string, string>>> = [
  [],
  [{ key: "dedicated", operator: "Equal", value: "db", effect: "NoSchedule" }],
  [{ key: "soft", operator: "Exists" }],
  [{ key: "node.platform.io/unschedulable", operator: "Exists", effect: "NoSchedule" }],
  [{ operator: "Exists" }]
]

const nodeObject = (r: ReturnType<typeof lcg>, name: string): KObject => ({
  metadata: { name, labels: { zone: r.pick(["a", "b", "c"]), disk: r.pick(["ssd", "hdd"]) } },
  spec: { taints: r.pick(taintChoices), ...(r.rand(8) === 0 ? { unschedulable: true } : {}) },
  status: { allocatable: { cpu: r.pick(["1", "2", "4"]), memory: r.pick(["2Gi", "4Gi", "8Gi"]), pods: String(r.pick([2, 4, 110])) } }
})

const podObject = (r: ReturnType<typeof lcg>, name: string, nodeNames: ReadonlyArray<string>): KObject => {
  const requests = r.pick<Record<string, string>>([{}, { cpu: "100m" }, { memory: "512Mi" }, { cpu: "500m", memory: "1Gi" }, { cpu: "1500m", memory: "3Gi" }])
  const kind = r.rand(10)
  const spec: Record<string, unknown> = {
    containers: [{ name: "c", image: "img", resources: { requests } }],
    tolerations: r.pick(tolerationChoices)
  }
  if (kind === 0) spec.nodeSelector = { zone: r.pick(["a", "b"]) }
  if (kind === 1) spec.nodeSelector = {}
  if (kind === 2) spec.nodeName = r.pick(nodeNames)
  if (kind === 3)
    spec.affinity = {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "disk", operator: "In", values: ["ssd"] }] }] } }
    }
  if (kind === 4)
    spec.affinity = {
      nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] } }] }
    }
  return { metadata: { name, namespace: "default", uid: `uid-${name}` }, spec }
}

const plainOf = (s: Selection) => ({ processed: s.processed, chosen: s.chosen?.name, reasons: s.reasons })

describe("selectPlainNode", () => {
  it("answers as selectNode does (node, reasons, processed count, draws) on random clusters, or leaves the cycle to it", () => {
    const seen = { answered: 0, declined: 0, failed: 0, drawn: 0, withTaintedOrUnschedulable: 0 }
    for (const seed of [1, 7, 42, 1234, 99_999]) {
      const r = lcg(seed)
      const count = r.pick([3, 40, 150])
      const names = Array.from({ length: count }, (_, i) => `n${i}`)
      const nodes: NodeInfo[] = names.map((name) => nodeInfoOf(nodeObject(r, name)))
      for (let p = 0; p < 400; p++) {
        const pod = podView(podObject(r, `p${p}`, names))
        const start = r.rand(nodes.length)
        const want = r.pick([1, 2, 5, numFeasibleNodesToFind(nodes.length)])
        const generalRandom = makeRandom(seed + p)
        const plainRandom = makeRandom(seed + p)
        const general = selectNode(pod, nodes, start, want, generalRandom)
        const plain = selectPlainNode(pod, nodes, start, want, plainRandom)
        if (plain === undefined) {
          seen.declined++
          continue
        }
        seen.answered++
        expect(plainOf(plain)).toEqual(plainOf(general))
        // the same number of draws: the next ones agree
        expect(plainRandom.next()).toBe(generalRandom.next())
        if (general.chosen === undefined) seen.failed++
        if (makeRandom(seed + p).next() !== generalRandom.next()) seen.drawn++
        if (nodes.some((n) => n.unschedulable || n.taints.length > 0)) seen.withTaintedOrUnschedulable++
        // The cluster fills up: some cycles find nothing.
        if (general.chosen !== undefined && r.rand(2) === 0) addPodToNodeInfo(general.chosen, pod)
      }
    }
    // Every kind of answer was compared, and most cycles took the plain pass.
    expect(seen.answered).toBeGreaterThan(1000)
    expect(seen.declined).toBeGreaterThan(100)
    expect(seen.failed).toBeGreaterThan(50)
    expect(seen.drawn).toBeGreaterThan(50)
    expect(seen.withTaintedOrUnschedulable).toBeGreaterThan(500)
  })

  it("a scheduler deciding through it places every pod as one using only selectNode, through node and pod churn", () => {
    for (const seed of [3, 11, 2024]) {
      const [fast, general] = runSim(
        Effect.gen(function* () {
          return [yield* makeSchedulerCore({}), yield* makeSchedulerCore({ generalSelectionOnly: true })] as const
        }),
        { seed }
      )
      const r = lcg(seed)
      const names = Array.from({ length: 120 }, (_, i) => `n${i}`)
      const live = new Map<string, KObject>()
      let decided = 0
      let failedCycles = 0
      for (let step = 0; step < 3000; step++) {
        const what = r.rand(100)
        if (what < 8) {
          // a node registers, changes (taints, unschedulable, size) or comes back
          const node = nodeObject(r, r.pick(names))
          fast.upsertNode(node, step)
          general.upsertNode(node, step)
        } else if (what < 10) {
          const name = r.pick(names)
          fast.deleteNode(name)
          general.deleteNode(name)
        } else if (what < 25 && live.size > 0) {
          const key = r.pick([...live.keys()])
          const pod = live.get(key)!
          live.delete(key)
          fast.deletePod(pod, step)
          general.deletePod(pod, step)
        } else {
          const pod = podObject(r, `p${step}`, names)
          const view = podView(pod)
          const a = fast.decide(view)
          const b = general.decide(view)
          expect(a).toEqual(b)
          if ("node" in a) {
            decided++
            const bound = { ...pod, spec: { ...(pod.spec as object), nodeName: a.node } }
            live.set(`p${step}`, bound)
            fast.upsertPod(bound, step)
            general.upsertPod(bound, step)
          } else failedCycles++
        }
      }
      expect(decided).toBeGreaterThan(500)
      expect(failedCycles).toBeGreaterThan(20)
      const usage = (c: typeof fast) => [...c.nodes.values()].map((n) => [n.name, n.pods, n.reqCpu, n.reqMemory, n.nonZeroCpu, n.nonZeroMemory])
      expect(usage(fast)).toEqual(usage(general))
    }
  })
})
