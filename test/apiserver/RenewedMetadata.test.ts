/**
 * The metadata a renewal writes, built as a literal of a lease's keys (simulator/apiserver/RenewedMetadata.ts), is the
 * copy the general way makes: the same keys in the same order, the same values, plain data.
 */
import { describe, expect, it } from "@effect/vitest"
import type { ObjectMeta } from "../../src/api/Object.js"
import { renewedMetadata } from "../../simulator/apiserver/RenewedMetadata.js"

const general = (meta: ObjectMeta, managedFields: ObjectMeta["managedFields"]) => ({ ...meta, managedFields })

const ownerReferences = [{ apiVersion: "v1", kind: "Node", name: "node-1", uid: "u-1" }]
const managedFields = [{ manager: "kubelet", operation: "Update" as const, apiVersion: "coordination.platform/v1", time: "2026-01-01T00:00:00Z", fieldsType: "FieldsV1", fieldsV1: {} }]
const next = [{ ...managedFields[0]!, time: "2026-01-01T00:00:10Z" }]

describe("renewedMetadata", () => {
  it("is the stored metadata with the new managed fields: same keys, order, values", () => {
    const common = { uid: "u", creationTimestamp: "2026-01-01T00:00:00Z", managedFields, resourceVersion: "7" }
    const metas: Array<ObjectMeta> = [
      // the three sequences built as literals
      { name: "node-1", namespace: "platform-node-lease", ownerReferences, ...common },
      { name: "node-1", namespace: "platform-node-lease", labels: { run: "r" }, ownerReferences, ...common },
      { name: "node-1", namespace: "platform-node-lease", ...common },
      // anything else is copied
      { name: "node-1", namespace: "platform-node-lease", ownerReferences, ...common, annotations: { a: "b" } },
      { namespace: "platform-node-lease", name: "node-1", ownerReferences, ...common },
      { name: "node-1", namespace: "platform-node-lease", ownerReferences, uid: "u", creationTimestamp: "t", managedFields },
      { name: "node-1", namespace: "platform-node-lease", labels: { run: "r" }, ...common },
      { name: "node-1", ...common },
      JSON.parse(`{"name":"node-1","namespace":"platform-node-lease","__proto__":{"x":1},"uid":"u"}`)
    ]
    for (const meta of metas) {
      const built = renewedMetadata(meta, next)
      const expected = general(meta, next)
      expect([Object.keys(meta), Object.keys(built)]).toEqual([Object.keys(meta), Object.keys(expected)])
      expect(Object.values(built)).toEqual(Object.values(expected))
      expect(JSON.stringify(built)).toBe(JSON.stringify(expected))
      expect(Object.getPrototypeOf(built)).toBe(Object.prototype)
      expect(built).not.toBe(meta)
      expect(built.managedFields).toBe(next)
      expect(meta.managedFields).not.toBe(next)
    }
  })
})
