/**
 * A lease renewal over a renewal's version makes its managed fields from what that renewal remembered
 * (`OwnEntry.ownEntryAlone`, simulator/apiserver/LeaseRenewal.ts): the same list `withOwnEntryTime` makes of the
 * stored one — the same entry, keys in the same order, the same class — for leases created by the agent's manager and
 * by another, on their own and with labels and owners.
 */
import { describe, expect, it } from "@effect/vitest"
import { ownEntryAlone, withOwnEntryTime } from "../../src/api/apply/OwnEntry.js"
import type { ManagedFieldsEntry } from "../../src/api/apply/FieldSet.js"
import { Leases } from "../../src/api/Resources.js"
import { ApiServerImpl, defaultConfig } from "../../simulator/apiserver/ApiServer.js"
import { scopeOf } from "../../simulator/apiserver/FieldManager.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { microTime, rfc3339 } from "../../simulator/apiserver/SystemMeta.js"

const namespace = "platform-node-lease"
const start = Date.UTC(2026, 0, 1)

describe("ownEntryAlone", () => {
  it("makes the list withOwnEntryTime makes of a lease's own entry alone", () => {
    const server = new ApiServerImpl(defaultConfig, start)
    const client = inProcessClient(server)
    const scope = scopeOf(Leases, undefined)
    const leases = [
      { metadata: { name: "a", namespace }, spec: { holderIdentity: "a", leaseDurationSeconds: 40, renewTime: microTime(start) } },
      { metadata: { name: "b", namespace, labels: { x: "y" } }, spec: { holderIdentity: "b", renewTime: microTime(start) } },
      {
        metadata: { name: "c", namespace, ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "c", uid: "00000000-0000-4000-8000-000000000001" }] },
        spec: { holderIdentity: "c", leaseDurationSeconds: 40, renewTime: microTime(start) }
      }
    ]
    let compared = 0
    for (const fieldManager of [undefined, "kubelet"]) {
      for (const lease of leases) {
        const name = `${lease.metadata.name}-${fieldManager ?? "none"}`
        client.at!(start)!.create(Leases, { ...lease, metadata: { ...lease.metadata, name } }, { namespace, fieldManager })
        const entries = server.store.get(Leases, `${namespace}/${name}`)!.metadata.managedFields as ReadonlyArray<ManagedFieldsEntry>
        expect(entries.length).toBe(1)
        for (const at of [start + 1_000, start + 3_600_000.5, Date.UTC(2038, 0, 19, 3, 14, 8)]) {
          const general = withOwnEntryTime(entries, 0, scope, rfc3339(at))!
          const alone = ownEntryAlone(entries[0]!.manager ?? "", scope, rfc3339(at), entries[0]!.fieldsV1)
          expect(alone).toEqual(general)
          expect(Object.keys(alone[0]!)).toEqual(Object.keys(general[0]!))
          expect(Object.getPrototypeOf(alone[0]!)).toBe(Object.getPrototypeOf(general[0]!))
          expect(alone[0]!.fieldsV1).toBe(general[0]!.fieldsV1)
          expect(JSON.stringify(alone)).toBe(JSON.stringify(general))
          compared++
        }
      }
    }
    expect(compared).toBe(18)
  })
})
