/**
 * The delete's garbage-collection step scans every stored object's owner references. Writes validate those
 * references, but the scan must not trust it: one malformed reference stored (as by an older server) once made
 * every orphan or foreground DELETE of any object a 500 that left it stuck with a deletionTimestamp.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { ConfigMaps } from "../../src/api/Resources.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { objectKey } from "../../simulator/apiserver/Store.js"

const ns = { namespace: "default" }

describe("garbage collection over malformed owner references", () => {
  it.effect("orphan and foreground deletes finish; references to the owner are still found and dropped", () =>
    Effect.gen(function* () {
      const s = yield* ApiServer
      const owner = yield* s.create(ConfigMaps, { value: { metadata: { name: "owner" } } }, ns)
      const uid = owner.object.metadata.uid!
      // Stored past validation: a null, a number and a uid-less reference beside a real one.
      const malformed = { metadata: { name: "odd", namespace: "default", uid: "odd-uid", ownerReferences: [null, 5, {}, { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid }] } }
      s.store.putFresh(ConfigMaps, objectKey("default", "odd"), malformed as unknown as KObject, 0)
      for (const [name, policy] of [["plain", "Foreground"], ["owner", "Orphan"]] as const) {
        if (name === "plain") yield* s.create(ConfigMaps, { value: { metadata: { name } } }, ns)
        const deleted = yield* s.delete(ConfigMaps, name, { ...ns, propagationPolicy: policy })
        expect(deleted.code).toBe(200)
        expect((yield* Effect.flip(s.get(ConfigMaps, name, ns))).code).toBe(404)
      }
      // Orphaning dropped the reference to the owner and kept the others as they were.
      expect((yield* s.get(ConfigMaps, "odd", ns)).metadata.ownerReferences).toEqual([null, 5, {}])
    }).pipe(Effect.provide(ApiServer.layer())))
})
