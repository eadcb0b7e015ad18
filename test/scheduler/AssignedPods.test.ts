/**
 * The scheduler's accounted pods filed by node (simulator/scheduler/AssignedPods.ts) find the entry one index by
 * namespace and name finds — the general path, as SchedulerCore kept them before — whatever node the lookup names:
 * the pod's own, none (a pending or assumed pod), another (a pod recreated elsewhere while a watch missed its delete).
 */
import { describe, expect, it } from "@effect/vitest"
import { type Assigned, AssignedPods } from "../../simulator/scheduler/AssignedPods.js"
import type { Requests } from "../../simulator/scheduler/framework/Views.js"

const noRequests: Requests = { cpu: 0, memory: 0, nonZeroCpu: 0, nonZeroMemory: 0 }

/** The general path: every entry by namespace, then name. */
class ByName {
  readonly index = new Map<string, Map<string, Assigned>>()
  find(namespace: string, name: string): Assigned | undefined {
    return this.index.get(namespace)?.get(name)
  }
  add(e: Assigned): void {
    let names = this.index.get(e.namespace)
    if (names === undefined) this.index.set(e.namespace, (names = new Map()))
    names.set(e.name, e)
  }
  remove(e: Assigned): void {
    const names = this.index.get(e.namespace)
    names?.delete(e.name)
    if (names?.size === 0) this.index.delete(e.namespace)
  }
  all(): Assigned[] {
    return [...this.index.values()].flatMap((names) => [...names.values()])
  }
}

const describeEntry = (e: Assigned | undefined) => (e === undefined ? "none" : `${e.namespace}/${e.name}@${e.node}#${e.listed}`)

describe("AssignedPods", () => {
  it("finds what the index by name finds, under any node named, through adds, moves and removals", () => {
    let state = 7
    const rand = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31
      return Math.floor((state / 2 ** 31) * n)
    }
    const namespaces = ["default", "other"]
    const names = ["a", "b", "c", "d", "e", "f"]
    const nodes = ["n0", "n1", "n2", "n3"]
    const filed = new AssignedPods()
    const general = new ByName()
    let serial = 0
    let fallbacks = 0
    for (let step = 0; step < 4_000; step++) {
      const namespace = namespaces[rand(namespaces.length)]!
      const name = names[rand(names.length)]!
      // the node a lookup names: the entry's own, none, or any other
      const hint = ["", ...nodes][rand(nodes.length + 1)]!
      const found = filed.find(namespace, name, hint)
      const expected = general.find(namespace, name)
      expect(describeEntry(found), `step ${step}: ${namespace}/${name} under "${hint}"`).toBe(describeEntry(expected))
      expect(found).toBe(expected)
      if (expected !== undefined && expected.node !== hint) fallbacks++
      const r = rand(10)
      if (r < 5) {
        // a pod accounted (again) to a node: the scheduler's `assign`, its old entry erased first
        if (expected !== undefined) {
          filed.remove(expected)
          general.remove(expected)
        }
        const entry: Assigned = { namespace, name, node: nodes[rand(nodes.length)]!, requests: noRequests, spec: undefined, listed: ++serial }
        filed.add(entry)
        general.add(entry)
      } else if (r < 8 && expected !== undefined) {
        filed.remove(expected)
        general.remove(expected)
      } else if (r < 9) {
        // removing an entry not held (already erased) changes nothing
        filed.remove({ namespace, name, node: nodes[rand(nodes.length)]!, requests: noRequests, spec: undefined, listed: -1 })
      }
      expect(filed.size).toBe(general.all().length)
      if (step % 500 === 0) expect(new Set(filed)).toEqual(new Set(general.all()))
    }
    // the lookups by another node than the entry's took the index by name
    expect(fallbacks).toBeGreaterThan(200)
  })

  it("an empty set finds nothing, and a set emptied again does not keep its entries", () => {
    const pods = new AssignedPods()
    expect(pods.find("default", "a", "")).toBeUndefined()
    const a: Assigned = { namespace: "default", name: "a", node: "n", requests: noRequests, spec: undefined, listed: 0 }
    pods.add(a)
    expect(pods.find("default", "a", "")).toBe(a)
    expect(pods.find("default", "a", "n")).toBe(a)
    pods.remove(a)
    expect([pods.size, [...pods], pods.find("default", "a", ""), pods.find("default", "a", "n")]).toEqual([0, [], undefined, undefined])
  })
})
