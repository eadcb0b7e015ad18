/**
 * The managed-fields fast path (`changeExtent`, `ManagedFields.ts` `refreshedOwnEntry`): a write decided without
 * building field sets must leave exactly the entries the general path leaves. Random sequences of Node writes by
 * two managers, main resource and status subresource, each computed twice: with the server's own (well-formed)
 * entries, which may take the fast path, and with a client's copy of them, which always takes the general one.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { afterUpdate, type ManagedFieldsEntry, type WriteScope } from "../../../src/api/apply/ManagedFields.js"
import { changeExtent } from "../../../src/api/apply/TypedFields.js"
import type { KObject } from "../../../src/api/Object.js"
import { apiVersionOf, Leases, Nodes } from "../../../src/api/Resources.js"

const scopes: ReadonlyArray<WriteScope> = [undefined, "status"].map((subresource) => ({
  schema: Nodes.rules.schema,
  apiVersion: apiVersionOf(Nodes),
  subresource,
  hasStatus: true
}))

const conditionTypes = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"] as const

/** One write's change to a node, picked at random. */
type Edit =
  | { readonly op: "heartbeat"; readonly at: number; readonly value: string }
  | { readonly op: "conditionStatus"; readonly at: number; readonly value: string }
  | { readonly op: "label"; readonly key: string; readonly value: string }
  | { readonly op: "unlabel"; readonly key: string }
  | { readonly op: "unschedulable"; readonly value: boolean }
  | { readonly op: "resourceVersion"; readonly value: string }
  | { readonly op: "reorder" }
  | { readonly op: "dropCondition" }
  | { readonly op: "addCondition"; readonly type: string }

const edit: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant("heartbeat" as const), at: fc.nat(3), value: fc.constantFrom("t1", "t2", "t3") }) },
  fc.record({ op: fc.constant("conditionStatus" as const), at: fc.nat(3), value: fc.constantFrom("True", "False") }),
  fc.record({ op: fc.constant("label" as const), key: fc.constantFrom("a", "b", "c"), value: fc.constantFrom("x", "y") }),
  fc.record({ op: fc.constant("unlabel" as const), key: fc.constantFrom("a", "b", "c") }),
  fc.record({ op: fc.constant("unschedulable" as const), value: fc.boolean() }),
  fc.record({ op: fc.constant("resourceVersion" as const), value: fc.constantFrom("7", "8") }),
  fc.constant({ op: "reorder" as const }),
  fc.constant({ op: "dropCondition" as const }),
  fc.record({ op: fc.constant("addCondition" as const), type: fc.constantFrom("NetworkUnavailable", "Ready") })
)

type Conditions = Array<Record<string, string>>

/** `node` after `edits`, sharing every part they did not touch (as a server's stored successor does). */
const edited = (node: KObject, edits: ReadonlyArray<Edit>): KObject => {
  let metadata = node.metadata
  let spec = node.spec as Record<string, unknown>
  let status = node.status as { conditions: Conditions }
  const conditions = (f: (c: Conditions) => Conditions) => (status = { ...status, conditions: f(status.conditions) })
  const at = (i: number, c: Conditions) => i % Math.max(1, c.length)
  for (const e of edits) {
    switch (e.op) {
      case "heartbeat":
      case "conditionStatus":
        conditions((c) => c.map((x, i) => (i === at(e.at, c) ? { ...x, [e.op === "heartbeat" ? "lastHeartbeatTime" : "status"]: e.value } : x)))
        break
      case "label":
        metadata = { ...metadata, labels: { ...metadata.labels, [e.key]: e.value } }
        break
      case "unlabel": {
        const { [e.key]: _gone, ...labels } = metadata.labels ?? {}
        metadata = { ...metadata, labels }
        break
      }
      case "unschedulable":
        spec = { ...spec, unschedulable: e.value }
        break
      case "resourceVersion":
        metadata = { ...metadata, resourceVersion: e.value }
        break
      case "reorder":
        conditions((c) => [...c].reverse())
        break
      case "dropCondition":
        conditions((c) => c.slice(1))
        break
      case "addCondition":
        conditions((c) => [...c, { type: e.type, status: "Unknown", lastHeartbeatTime: "t0" }])
        break
    }
  }
  return { metadata, spec, status } as KObject
}

const firstNode = (): KObject =>
  ({
    metadata: { name: "node-1", uid: "u-1", resourceVersion: "5", labels: { a: "x" } },
    spec: { podCIDR: "10.0.0.0/24" },
    status: { conditions: conditionTypes.map((type) => ({ type, status: "False", lastHeartbeatTime: "t0" })) }
  }) as KObject

const carrying = (obj: KObject, managedFields: ReadonlyArray<ManagedFieldsEntry>): KObject => ({ ...obj, metadata: { ...obj.metadata, managedFields } }) as KObject

/** A client's copy of the entries: equal, but not the server's own array, so the general path decides. */
const clientCopy = (entries: ReadonlyArray<ManagedFieldsEntry>): ReadonlyArray<ManagedFieldsEntry> => JSON.parse(JSON.stringify(entries))

/** The fields of these edits a write to the main resource does not own (`ManagedFields.ts` `ownable`). */
const notOwnedByMain = { "f:status": {}, "f:metadata": { "f:resourceVersion": {} } }

const step = fc.record({ manager: fc.oneof({ weight: 3, arbitrary: fc.constant("agent") }, fc.constant("controller")), scope: fc.oneof(fc.constant(0), { weight: 3, arbitrary: fc.constant(1) }), edits: fc.array(edit, { minLength: 0, maxLength: 3 }) })

describe("managed fields: the fast path leaves what the general path leaves", () => {
  it("random writes to a node by two managers, main resource and status", () => {
    const extents = { none: 0, owned: 0, other: 0 }
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        let second = 0
        let stored = carrying(firstNode(), afterUpdate(undefined, firstNode(), "agent", scopes[0]!, () => "T0"))
        for (const { manager, scope: which, edits } of steps) {
          const scope = scopes[which]!
          const after = edited(stored, edits)
          const time = `T${++second}`
          const entries = stored.metadata.managedFields as ReadonlyArray<ManagedFieldsEntry>
          const own = entries.filter((e) => e.manager === manager && (e.subresource ?? "") === (scope.subresource ?? ""))
          if (own.length === 1) {
            const others = entries.filter((e) => e !== own[0]).map((e) => e.fieldsV1)
            const extent =
              scope.subresource === "status"
                ? changeExtent({ status: stored.status }, { status: after.status }, scope.schema, own[0]!.fieldsV1, others, undefined)
                : changeExtent(stored, after, scope.schema, own[0]!.fieldsV1, others, notOwnedByMain)
            extents[extent]++
          }
          const fast = afterUpdate(stored, after, manager, scope, () => time)
          const general = afterUpdate(carrying(stored, clientCopy(entries)), carrying(after, clientCopy(entries)), manager, scope, () => time)
          expect(JSON.stringify(fast)).toBe(JSON.stringify(general))
          stored = carrying(after, fast)
        }
      }),
      { numRuns: 600, seed: 26 }
    )
    // The sequences exercised both answers of the fast path, not only the fallback.
    expect(extents.owned).toBeGreaterThan(50)
    expect(extents.none).toBeGreaterThan(50)
    expect(extents.other).toBeGreaterThan(50)
  })

  it("a lease renewal is decided by the fast path; an added or removed field, a field of another manager, are not", () => {
    const schema = Leases.rules.schema
    const lease = { metadata: { name: "n" }, spec: { holderIdentity: "n", renewTime: "r1" } } as KObject
    const owned = { "f:spec": { "f:holderIdentity": {}, "f:renewTime": {} } }
    const renewed = { ...lease, spec: { holderIdentity: "n", renewTime: "r2" } } as KObject
    expect(changeExtent(lease, renewed, schema, owned, [], undefined)).toBe("owned")
    expect(changeExtent(lease, { ...lease }, schema, owned, [], undefined)).toBe("none")
    expect(changeExtent(lease, renewed, schema, owned, [{ "f:spec": { "f:renewTime": {} } }], undefined)).toBe("other")
    expect(changeExtent(lease, { ...lease, spec: { holderIdentity: "n", renewTime: "r2", leaseDurationSeconds: 40 } } as KObject, schema, owned, [], undefined)).toBe("other")
    expect(changeExtent(lease, { ...lease, spec: { renewTime: "r2" } } as KObject, schema, owned, [], undefined)).toBe("other")
    expect(changeExtent(lease, renewed, schema, { "f:spec": { "f:holderIdentity": {} } }, [], undefined)).toBe("other")
  })
})
