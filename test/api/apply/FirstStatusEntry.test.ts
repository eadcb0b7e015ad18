/**
 * A status write to an object without managed fields, repeated with the same stored and written statuses (a node
 * agent's first status PATCH of the pods it starts in one second), takes the entries `ManagedFields.ts`
 * `firstStatusEntries` remembered from the last such write instead of comparing the objects again. Every write of a
 * script is made once with the very same status objects (the remembered path after the first) and once with fresh
 * copies of every object (the compare every time): the entries must be the same, entry by entry and field by field,
 * and a write that changes no field gives back the object's own entries.
 */
import { describe, expect, it } from "@effect/vitest"
import { afterUpdate, type ManagedFieldsEntry, type WriteScope } from "../../../src/api/apply/ManagedFields.js"
import type { KObject } from "../../../src/api/Object.js"
import { apiVersionOf, Nodes, Pods } from "../../../src/api/Resources.js"

const podStatus: WriteScope = { schema: Pods.rules.schema, apiVersion: apiVersionOf(Pods), subresource: "status", hasStatus: true }
const nodeStatus: WriteScope = { schema: Nodes.rules.schema, apiVersion: apiVersionOf(Nodes), subresource: "status", hasStatus: true }
const podMain: WriteScope = { ...podStatus, subresource: undefined }

const scheduled = "2026-01-01T00:00:00Z"
const pending = { phase: "Pending", conditions: [{ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: scheduled }] }
const running = (t: string) => ({
  phase: "Running",
  conditions: [{ type: "Ready", status: "True", lastTransitionTime: t }, pending.conditions[0]],
  startTime: t,
  containerStatuses: [{ name: "app", ready: true, restartCount: 0, started: true, state: { running: { startedAt: t } } }]
})
const runningAt1 = running("2026-01-01T00:00:01Z")
const runningAt2 = running("2026-01-01T00:00:02Z")
const failed = { phase: "Failed", reason: "Evicted", message: "The node was low on resource: memory." }
const phaseOnly = { phase: "Pending" }
const ready = { conditions: [{ type: "Ready", status: "False" }] }
const spec = { nodeName: "node-1", containers: [{ name: "app", image: "registry.example/app:1" }] }
const pod = (name: string, status: object, managedFields?: ReadonlyArray<ManagedFieldsEntry>): KObject =>
  ({ metadata: { name, namespace: "default", uid: `uid-${name}`, ...(managedFields ? { managedFields } : {}) }, spec, status }) as KObject
const node = (name: string, status: object): KObject => ({ metadata: { name, uid: `uid-${name}` }, spec: {}, status }) as KObject

interface Write {
  readonly before: KObject
  readonly after: KObject
  readonly manager: string
  readonly scope: WriteScope
  readonly time: string
}

const write = (before: KObject, status: object, manager: string, time: string, scope = podStatus): Write => ({
  before,
  after: { ...before, status } as KObject,
  manager,
  scope,
  time
})

const emptyList: ReadonlyArray<ManagedFieldsEntry> = []
const t1 = "2026-01-01T00:00:01Z"
const t2 = "2026-01-01T00:00:02Z"
const script: ReadonlyArray<Write> = [
  write(pod("a", pending), runningAt1, "kubelet", t1),
  write(pod("b", pending), runningAt1, "kubelet", t1), // the same statuses, the same second
  write(pod("c", pending), runningAt1, "kubelet", t1),
  write(pod("d", pending), runningAt1, "kubelet", t2), // the same statuses, the next second
  write(pod("e", pending), runningAt1, "kubelet", t2),
  write(pod("f", pending), runningAt1, "other-agent", t2), // another manager
  write(pod("g", pending), runningAt1, "", t2), // a manager without a name
  write(pod("h", pending), runningAt2, "kubelet", t2), // another written status
  write(pod("i", pending), runningAt2, "kubelet", t2),
  write(node("n1", phaseOnly), ready, "kubelet", t2, nodeStatus), // another scope between
  write(pod("j", pending), runningAt2, "kubelet", t2),
  write(pod("k", pending), failed, "kubelet", t2),
  write(pod("l", pending), failed, "kubelet", t2),
  write(pod("m", pending), pending, "kubelet", t2), // the stored status itself: nothing changes
  write(pod("n", pending), pending, "kubelet", t2),
  write(pod("o", pending, emptyList), pending, "kubelet", t2), // an empty list of its own: given back as it is
  write(pod("p", pending, emptyList), pending, "kubelet", t2),
  write(pod("q", runningAt1), phaseOnly, "kubelet", t2), // only removed and modified fields
  write(pod("r", runningAt1), phaseOnly, "kubelet", t2),
  write(pod("s", phaseOnly), ready, "kubelet", t2), // only added fields
  write(pod("t", phaseOnly), ready, "kubelet", t2),
  write(pod("u", pending), runningAt1, "kubelet", t2), // back to the first statuses
  write(pod("y", phaseOnly), runningAt1, "kubelet", t2), // the same written status over another stored one
  write(pod("v", pending), runningAt1, "kubelet", t1), // an earlier second than the last write's
  write(pod("w", pending), runningAt1, "kubelet", t2, podMain), // the main resource: not this path
  write(pod("x", pending), runningAt1, "kubelet", t2, podMain)
]

const entriesOf = (w: Write, copy: boolean): ReadonlyArray<ManagedFieldsEntry> => {
  const before = copy ? structuredClone(w.before) : w.before
  const after = copy ? ({ ...structuredClone(w.after), metadata: before.metadata } as KObject) : w.after
  return afterUpdate(before, after, w.manager, w.scope, () => w.time)
}

describe("a first status write's entries, remembered from the last one with the same statuses", () => {
  it("are the compared entries, write by write, field by field", () => {
    const remembered = script.map((w) => entriesOf(w, false))
    const compared = script.map((w) => entriesOf(w, true))
    for (let i = 0; i < script.length; i++) {
      const [r, c] = [remembered[i]!, compared[i]!]
      expect(r.length, script[i]!.before.metadata.name).toBe(c.length)
      for (let j = 0; j < r.length; j++) {
        expect(Object.keys(r[j]!)).toEqual(Object.keys(c[j]!))
        expect(JSON.stringify(r[j])).toBe(JSON.stringify(c[j]))
      }
    }
    // a write that changes nothing gives the object's own entries back: none, or its own empty list
    const of = (name: string) => remembered[script.findIndex((w) => w.before.metadata.name === name)]
    expect(of("m")).toEqual([])
    expect(of("n")).toEqual([])
    expect(of("o")).toBe(emptyList)
    expect(of("p")).toBe(emptyList)
  })

  it("writes in the same second with the same statuses share one list; another second, manager or status makes its own", () => {
    const [a, b, c, d, e, f, g, h] = script.slice(0, 8).map((w) => entriesOf(w, false))
    expect(b).toBe(a)
    expect(c).toBe(a)
    expect(d).not.toBe(a)
    expect(e).toBe(d)
    expect(d![0]!.time).toBe(t2)
    expect(d![0]!.fieldsV1).toEqual(a![0]!.fieldsV1)
    expect(f![0]!.manager).toBe("other-agent")
    expect(g![0]!.manager).toBeUndefined()
    expect(Object.keys(g![0]!)).toEqual(["operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"])
    expect(h).toBe(d) // equal lists are shared, whichever statuses made them (`sharedLists`)
  })
})
