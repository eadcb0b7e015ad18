/** Server-side apply and managedFields (reference §5.4–5.6), the same over every transport. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ConfigMaps, Leases } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { clientLayer, transports } from "../support/transports.js"

const cm = (data: Record<string, string>, name = "c") => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data })
const at = (fieldManager: string, extra: Record<string, unknown> = {}) => ({ namespace: "default", fieldManager, ...extra })

describe.each(transports)("server-side apply over %s", (transport) => {
  const run = <A, E>(effect: Effect.Effect<A, E, ApiClient>) => effect.pipe(Effect.provide(clientLayer(transport)))

  it.effect("every write records its manager's fields; apply conflicts, forces, and drops fields it no longer applies", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const created = yield* api.create(ConfigMaps, cm({ a: "1" }), at("creator"))
        const createdAt = created.object.metadata.creationTimestamp
        expect(created.object.metadata.managedFields).toEqual([
          { manager: "creator", operation: "Update", apiVersion: "v1", time: createdAt, fieldsType: "FieldsV1", fieldsV1: { "f:data": { ".": {}, "f:a": {} } } }
        ])

        const conflict = yield* Effect.flip(api.patch(ConfigMaps, "c", "apply", cm({ a: "2" }), at("tool-a")))
        expect(conflict.code).toBe(409)
        expect(conflict.status).toEqual({
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: 'Apply failed with 1 conflict: conflict with "creator" using v1: .data.a',
          reason: "Conflict",
          details: { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "creator" using v1', field: ".data.a" }] },
          code: 409
        })

        // The same value is no conflict: both own it.
        const shared = yield* api.patch(ConfigMaps, "c", "apply", cm({ a: "1", b: "1" }), at("tool-a"))
        expect(shared.code).toBe(200)
        expect(shared.object.data).toEqual({ a: "1", b: "1" })
        const sharedFields = shared.object.metadata.managedFields as Array<{ manager: string; operation: string; fieldsV1: unknown }>
        expect(sharedFields.map((e) => [e.manager, e.operation, e.fieldsV1])).toEqual([
          ["tool-a", "Apply", { "f:data": { "f:a": {}, "f:b": {} } }],
          ["creator", "Update", { "f:data": { ".": {}, "f:a": {} } }]
        ])

        const forced = yield* api.patch(ConfigMaps, "c", "apply", cm({ a: "2", b: "1" }), at("tool-a", { force: true }))
        expect(forced.object.data).toEqual({ a: "2", b: "1" })
        const forcedFields = forced.object.metadata.managedFields as Array<{ manager: string; fieldsV1: unknown }>
        expect(forcedFields.map((e) => [e.manager, e.fieldsV1])).toEqual([
          ["tool-a", { "f:data": { "f:a": {}, "f:b": {} } }],
          ["creator", { "f:data": {} }]
        ])

        // b is no longer applied and nobody else owns it: it goes.
        const pruned = yield* api.patch(ConfigMaps, "c", "apply", cm({ a: "2" }), at("tool-a"))
        expect(pruned.object.data).toEqual({ a: "2" })

        // A later Update by another manager takes the field it changes.
        const updated = yield* api.patch(ConfigMaps, "c", "merge", { data: { a: "3" } }, at("editor"))
        const updatedFields = updated.object.metadata.managedFields as Array<{ manager: string; operation: string; fieldsV1: unknown }>
        expect(updatedFields.map((e) => [e.manager, e.operation, e.fieldsV1])).toEqual([
          ["creator", "Update", { "f:data": {} }],
          ["editor", "Update", { "f:data": { "f:a": {} } }]
        ])
      })
    ))

  it.effect("apply creates (201), dry-run stores nothing, and the option and body errors of the reference", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const dry = yield* api.patch(ConfigMaps, "fresh", "apply", cm({ x: "1" }, "fresh"), at("tool", { dryRun: ["All"] }))
        expect(dry.code).toBe(201)
        expect(yield* Effect.flip(api.get(ConfigMaps, "fresh", { namespace: "default" }))).toMatchObject({ code: 404 })
        const fresh = yield* api.patch(ConfigMaps, "fresh", "apply", cm({ x: "1" }, "fresh"), at("tool"))
        expect(fresh.code).toBe(201)
        expect(fresh.object.metadata.managedFields).toEqual([
          { manager: "tool", operation: "Apply", apiVersion: "v1", time: fresh.object.metadata.creationTimestamp, fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:x": {} } } }
        ])

        const noManager = yield* Effect.flip(api.patch(ConfigMaps, "fresh", "apply", cm({ x: "1" }, "fresh"), { namespace: "default" }))
        expect([noManager.code, noManager.message]).toEqual([422, 'PatchOptions.meta.platform "" is invalid: fieldManager: Required value: is required for apply patch'])
        const wrongVersion = yield* Effect.flip(api.patch(ConfigMaps, "fresh", "apply", { ...cm({}, "fresh"), apiVersion: "x/v1" }, at("tool")))
        expect([wrongVersion.code, wrongVersion.message]).toEqual([400, "Incorrect version specified in apply patch. Specified patch version: x/v1, expected: v1"])
        const withFields = yield* Effect.flip(api.patch(ConfigMaps, "fresh", "apply", { ...cm({}, "fresh"), metadata: { name: "fresh", managedFields: [] } }, at("tool")))
        expect([withFields.code, withFields.message]).toEqual([400, "metadata.managedFields must be nil"])
        const forcedMerge = yield* Effect.flip(api.patch(ConfigMaps, "fresh", "merge", { data: {} }, at("tool", { force: true })))
        expect([forcedMerge.code, forcedMerge.message]).toEqual([422, 'PatchOptions.meta.platform "" is invalid: force: Forbidden: may not be specified for non-apply patch'])
      })
    ))

  it.effect("a manager rewriting only its own fields keeps its entry's fields; the entry takes the write's time (lease renewals)", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const spec = (renewTime: string) => ({ holderIdentity: "n", leaseDurationSeconds: 40, renewTime })
        const lease = yield* api.create(Leases, { metadata: { name: "l" }, spec: spec("2023-05-01T12:00:00.000000Z") }, at("agent"))
        const renewed = yield* api.update(Leases, { ...lease.object, spec: spec("2023-05-01T12:00:10.000000Z") }, at("agent"))
        // upstream `managedFieldsUpdater`: any field changed stamps the entry (unit-tested with explicit times in test/api/apply)
        const withoutTime = (entries: unknown) => (entries as Array<{ time: string }>).map(({ time: _t, ...rest }) => rest)
        expect(withoutTime(renewed.object.metadata.managedFields)).toEqual(withoutTime(lease.object.metadata.managedFields))
        const [before, after] = [lease, renewed].map((w) => (w.object.metadata.managedFields as Array<{ time: string }>)[0]!.time)
        expect(after! >= before!).toBe(true)
        expect((lease.object.metadata.managedFields as Array<{ fieldsV1: unknown }>)[0]!.fieldsV1).toEqual({
          "f:spec": { "f:holderIdentity": {}, "f:leaseDurationSeconds": {}, "f:renewTime": {} }
        })
      })
    ))
})
