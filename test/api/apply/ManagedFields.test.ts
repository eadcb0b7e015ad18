/**
 * The entry times of Update writes (upstream `managedFieldsUpdater`, 1.26): a manager's entry takes the time of
 * every write that changed one of its fields, also fields it already owned; a write that changes nothing, or only
 * removes fields, leaves the time as it was.
 */
import { describe, expect, it } from "@effect/vitest"
import { afterUpdate, type ManagedFieldsEntry, type WriteScope } from "../../../src/api/apply/ManagedFields.js"
import type { KObject } from "../../../src/api/Object.js"
import { apiVersionOf, ConfigMaps, Leases, Pods } from "../../../src/api/Resources.js"

const leaseScope: WriteScope = { schema: Leases.rules.schema, apiVersion: apiVersionOf(Leases), subresource: undefined, hasStatus: false }
const cmScope: WriteScope = { schema: ConfigMaps.rules.schema, apiVersion: apiVersionOf(ConfigMaps), subresource: undefined, hasStatus: false }

const lease = (renewTime: string, managedFields?: ReadonlyArray<ManagedFieldsEntry>): KObject =>
  ({ metadata: { name: "n", namespace: "platform-node-lease", ...(managedFields ? { managedFields } : {}) }, spec: { holderIdentity: "n", renewTime } }) as KObject

const withEntries = (obj: KObject, managedFields: ReadonlyArray<ManagedFieldsEntry>): KObject => ({ ...obj, metadata: { ...obj.metadata, managedFields } }) as KObject

describe("afterUpdate: entry times", () => {
  const created = afterUpdate(undefined, lease("2023-05-01T12:00:00.000000Z"), "agent", leaseScope, () => "2023-05-01T12:00:00Z")
  const stored = withEntries(lease("2023-05-01T12:00:00.000000Z"), created)

  it("a create records the creator's fields at the time of the write", () => {
    expect(created).toEqual([
      {
        manager: "agent",
        operation: "Update",
        apiVersion: "coordination.platform/v1",
        time: "2023-05-01T12:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:spec": { "f:holderIdentity": {}, "f:renewTime": {} } }
      }
    ])
  })

  it("a renewal by the owner keeps its fields and takes the time of the write", () => {
    const renewed = afterUpdate(stored, withEntries(lease("2023-05-01T12:00:10.000000Z"), created), "agent", leaseScope, () => "2023-05-01T12:00:10Z")
    expect(renewed).toEqual([{ ...created[0]!, time: "2023-05-01T12:00:10Z" }])
    // The field set itself is shared with the entry before: a renewal builds no set.
    expect(renewed[0]!.fieldsV1).toBe(created[0]!.fieldsV1)
  })

  it("a renewal within the same second, and a write that changes nothing, return the entries they were given", () => {
    let asked = 0
    const sameSecond = afterUpdate(stored, withEntries(lease("2023-05-01T12:00:00.500000Z"), created), "agent", leaseScope, () => (asked++, "2023-05-01T12:00:00Z"))
    expect(sameSecond).toBe(created)
    expect(asked).toBe(1)
    const noOp = afterUpdate(stored, stored, "agent", leaseScope, () => (asked++, "2023-05-01T12:00:20Z"))
    expect(noOp).toBe(created)
    expect(asked).toBe(1)
  })

  it("another manager's write takes the field it changed; the owner keeps its time", () => {
    const taken = afterUpdate(stored, withEntries(lease("2023-05-01T12:00:30.000000Z"), created), "other", leaseScope, () => "2023-05-01T12:00:30Z")
    expect(taken.map((e) => [e.manager, e.time, e.fieldsV1])).toEqual([
      ["agent", "2023-05-01T12:00:00Z", { "f:spec": { "f:holderIdentity": {} } }],
      ["other", "2023-05-01T12:00:30Z", { "f:spec": { "f:renewTime": {} } }]
    ])
  })

  it("a write that only removes fields takes them from their owner, whose time stays", () => {
    const cm = { metadata: { name: "c", namespace: "default" }, data: { a: "1", b: "2" } } as KObject
    const entries = afterUpdate(undefined, cm, "creator", cmScope, () => "2023-05-01T12:00:00Z")
    const removed = afterUpdate(withEntries(cm, entries), { ...cm, data: { a: "1" } } as KObject, "editor", cmScope, () => "2023-05-01T12:05:00Z")
    expect(removed.map((e) => [e.manager, e.time, e.fieldsV1])).toEqual([["creator", "2023-05-01T12:00:00Z", { "f:data": { ".": {}, "f:a": {} } }]])
  })
})

describe("afterUpdate: equal entry lists are shared between objects", () => {
  it("two config maps given the same fields by the same manager in the same second carry one list", () => {
    const cm = (name: string) => ({ metadata: { name, namespace: "default" }, data: { a: "1" } }) as KObject
    const first = afterUpdate(undefined, cm("one"), "creator", cmScope, () => "2023-05-01T12:00:00Z")
    const second = afterUpdate(undefined, cm("two"), "creator", cmScope, () => "2023-05-01T12:00:00Z")
    expect(second).toBe(first)
    const later = afterUpdate(undefined, cm("three"), "creator", cmScope, () => "2023-05-01T12:00:01Z")
    expect(later).not.toBe(first)
    expect(later.map((e) => e.time)).toEqual(["2023-05-01T12:00:01Z"])
  })
})

describe("afterUpdate: the fields of a write, as its entry records them (JSON text: key order included)", () => {
  const podStatusScope: WriteScope = { schema: Pods.rules.schema, apiVersion: apiVersionOf(Pods), subresource: "status", hasStatus: true }
  const scheduled = "2023-05-01T12:00:00Z"
  const pod = {
    metadata: { name: "p", namespace: "default", uid: "u" },
    spec: { nodeName: "n", containers: [{ name: "app", image: "i" }] },
    status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: scheduled }] }
  } as KObject

  it("a node agent's first status write of a pod (Running): the phase it changed, then what it added; the scheduler's condition is not its own", () => {
    const t = "2023-05-01T12:00:05Z"
    const cond = (type: string) => ({ type, status: "True", lastTransitionTime: t })
    const status = {
      phase: "Running",
      conditions: [cond("Initialized"), cond("Ready"), cond("ContainersReady"), { type: "PodScheduled", status: "True", lastTransitionTime: scheduled }],
      startTime: t,
      containerStatuses: [{ name: "app", ready: true, restartCount: 0, started: true, state: { running: { startedAt: t } } }]
    }
    const entries = afterUpdate(pod, { ...pod, status } as KObject, "", podStatusScope, () => t)
    const item = `{".":{},"f:type":{},"f:status":{},"f:lastTransitionTime":{}}`
    expect(JSON.stringify(entries)).toBe(
      `[{"operation":"Update","apiVersion":"v1","time":"${t}","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:phase":{},"f:conditions":{` +
        `"k:{\\"type\\":\\"Initialized\\"}":${item},"k:{\\"type\\":\\"Ready\\"}":${item},"k:{\\"type\\":\\"ContainersReady\\"}":${item}},` +
        `"f:startTime":{},"f:containerStatuses":{}}},"subresource":"status"}]`
    )
  })

  it("an edit of the main resource: modified fields first, then added ones; keyed items by their keys, defaults and missing keys included", () => {
    const edited = {
      ...pod,
      metadata: { ...pod.metadata, labels: { a: "1" } },
      spec: { nodeName: "n", containers: [{ name: "side", image: "s", ports: [{ containerPort: 80 }, { containerPort: 80, protocol: "UDP" }] }, { name: "app", image: "j" }, { image: "nameless" }] }
    } as KObject
    const entries = afterUpdate(pod, edited, "editor", { ...podStatusScope, subresource: undefined }, () => "T")
    expect(JSON.stringify(entries[0]!.fieldsV1)).toBe(
      `{"f:spec":{"f:containers":{"k:{\\"name\\":\\"app\\"}":{"f:image":{}},"k:{\\"name\\":\\"side\\"}":{".":{},"f:name":{},"f:image":{},"f:ports":{` +
        `"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}},"k:{\\"containerPort\\":80,\\"protocol\\":\\"UDP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}}}},` +
        `"k:{}":{".":{},"f:image":{}}}},"f:metadata":{"f:labels":{".":{},"f:a":{}}}}`
    )
  })
})
