/** Server-side apply and managedFields (upstream `fieldmanager`), the same over every transport. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ConfigMaps, Leases, Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { clientLayer, transports } from "../support/transports.js"
import { serverAnswer } from "../support/serverAnswer.js"

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

        const conflict = yield* serverAnswer(api.patch(ConfigMaps, "c", "apply", cm({ a: "2" }), at("tool-a")))
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

  it.effect("apply creates (201), dry-run stores nothing, and the option and body errors of upstream", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const dry = yield* api.patch(ConfigMaps, "fresh", "apply", cm({ x: "1" }, "fresh"), at("tool", { dryRun: ["All"] }))
        expect(dry.code).toBe(201)
        expect(yield* serverAnswer(api.get(ConfigMaps, "fresh", { namespace: "default" }))).toMatchObject({ code: 404 })
        const fresh = yield* api.patch(ConfigMaps, "fresh", "apply", cm({ x: "1" }, "fresh"), at("tool"))
        expect(fresh.code).toBe(201)
        expect(fresh.object.metadata.managedFields).toEqual([
          { manager: "tool", operation: "Apply", apiVersion: "v1", time: fresh.object.metadata.creationTimestamp, fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:x": {} } } }
        ])

        const noManager = yield* serverAnswer(api.patch(ConfigMaps, "fresh", "apply", cm({ x: "1" }, "fresh"), { namespace: "default" }))
        expect([noManager.code, noManager.message]).toEqual([422, 'PatchOptions.meta.platform "" is invalid: fieldManager: Required value: is required for apply patch'])
        const wrongVersion = yield* serverAnswer(api.patch(ConfigMaps, "fresh", "apply", { ...cm({}, "fresh"), apiVersion: "x/v1" }, at("tool")))
        expect([wrongVersion.code, wrongVersion.message]).toEqual([400, "Incorrect version specified in apply patch. Specified patch version: x/v1, expected: v1"])
        const withFields = yield* serverAnswer(api.patch(ConfigMaps, "fresh", "apply", { ...cm({}, "fresh"), metadata: { name: "fresh", managedFields: [] } }, at("tool")))
        expect([withFields.code, withFields.message]).toEqual([400, "metadata.managedFields must be nil"])
        const forcedMerge = yield* serverAnswer(api.patch(ConfigMaps, "fresh", "merge", { data: {} }, at("tool", { force: true })))
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

  it.effect("at most ten Update managers: the oldest are merged into an ancient-changes entry per version, Apply entries never", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        type Entry = { manager: string; operation: string; apiVersion: string; time: string; fieldsV1: unknown }
        const entries = (o: { metadata: { managedFields?: unknown } }) => o.metadata.managedFields as Array<Entry>
        // Managers named in the order they write, so ties within one second sort as the writes did.
        yield* api.create(ConfigMaps, cm({ a: "1" }), at("a"))
        yield* api.patch(ConfigMaps, "c", "apply", cm({ z: "1" }), at("tool"))
        const times: Record<string, string> = {}
        let last = undefined as undefined | Array<Entry>
        for (const m of ["b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]) {
          const written = yield* api.patch(ConfigMaps, "c", "merge", { data: { [m]: "1" } }, at(m))
          last = entries(written.object)
          times[m] = last.find((e) => e.manager === m)!.time
        }
        const summary = (es: Array<Entry>) => es.map((e) => [e.manager, e.operation, e.fieldsV1])
        // Eleven Update managers after k: a (the oldest of v1) becomes the bucket and b is merged into it.
        expect(summary(last!)).toEqual([
          ["tool", "Apply", { "f:data": { "f:z": {} } }],
          ["ancient-changes", "Update", { "f:data": { ".": {}, "f:a": {}, "f:b": {} } }],
          ...["c", "d", "e", "f", "g", "h", "i", "j", "k"].map((m) => [m, "Update", { "f:data": { [`f:${m}`]: {} } }])
        ])
        const bucket = last!.find((e) => e.manager === "ancient-changes")!
        expect([bucket.apiVersion, bucket.time]).toEqual(["v1", times.b])

        // The next Update merges the oldest other one (c) into the existing bucket.
        const next = yield* api.patch(ConfigMaps, "c", "merge", { data: { l: "1" } }, at("l"))
        expect(summary(entries(next.object))).toEqual([
          ["tool", "Apply", { "f:data": { "f:z": {} } }],
          ["ancient-changes", "Update", { "f:data": { ".": {}, "f:a": {}, "f:b": {}, "f:c": {} } }],
          ...["d", "e", "f", "g", "h", "i", "j", "k", "l"].map((m) => [m, "Update", { "f:data": { [`f:${m}`]: {} } }])
        ])
        expect(entries(next.object).find((e) => e.manager === "ancient-changes")!.time).toBe(times.c)
      })
    ))

  it.effect("conflicts with several managers list them sorted; a subresource manager is named with its subresource", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        yield* api.create(ConfigMaps, cm({ a: "1" }), at("creator"))
        yield* api.patch(ConfigMaps, "c", "apply", cm({ b: "1" }), at("tool-a"))
        const conflict = yield* serverAnswer(api.patch(ConfigMaps, "c", "apply", cm({ a: "2", b: "2" }), at("tool-b")))
        expect([conflict.code, conflict.message]).toEqual([409, 'Apply failed with 2 conflicts: conflicts with "creator" using v1:\n- .data.a\nconflicts with "tool-a":\n- .data.b'])
        const causes = conflict.status.details?.causes ?? []
        // upstream collects the conflicts from a map: their order is not defined
        expect(causes).toHaveLength(2)
        expect(causes).toEqual(
          expect.arrayContaining([
            { reason: "FieldManagerConflict", message: 'conflict with "creator" using v1', field: ".data.a" },
            { reason: "FieldManagerConflict", message: 'conflict with "tool-a"', field: ".data.b" }
          ])
        )

        const pod = yield* api.create(Pods, { metadata: { name: "p" }, spec: { containers: [{ name: "a", image: "a:1" }] } }, at("creator"))
        yield* api.update(Pods, { ...pod.object, status: { phase: "Running" } }, at("kubelet", { subresource: "status" }))
        const statusConflict = yield* serverAnswer(
          api.patch(Pods, "p", "apply", { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, status: { phase: "Failed" } }, at("tool", { subresource: "status" }))
        )
        expect([statusConflict.code, statusConflict.message]).toEqual([409, 'Apply failed with 1 conflict: conflict with "kubelet" with subresource "status" using v1: .status.phase'])
      })
    ))

  it.effect("an element of a keyed list must name its key fields (upstream's 500), unless the key has a default; no two elements one key", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const pod = (containers: ReadonlyArray<Record<string, unknown>>) => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" }, spec: { containers } })
        const prefix = "failed to create typed patch object (default/p; /v1, Kind=Pod): "
        const noName = yield* serverAnswer(api.patch(Pods, "p", "apply", pod([{ image: "a:1" }]), at("tool")))
        expect(noName.status).toEqual({
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: `${prefix}.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn't have default value)`,
          code: 500
        })
        const two = yield* serverAnswer(api.patch(Pods, "p", "apply", pod([{ name: "a", image: "a:1", ports: [{ protocol: "UDP" }] }, { image: "b:1" }]), at("tool")))
        expect([two.code, two.message]).toEqual([
          500,
          `${prefix}errors:\n` +
            `  .spec.containers[name="a"].ports: element 0: associative list with keys has an element that omits key field "containerPort" (and doesn't have default value)\n` +
            `  .spec.containers: element 1: associative list with keys has an element that omits key field "name" (and doesn't have default value)`
        ])
        const duplicate = yield* serverAnswer(api.patch(Pods, "p", "apply", pod([{ name: "a", image: "a:1" }, { name: "a", image: "a:2" }]), at("tool")))
        expect([duplicate.code, duplicate.message]).toEqual([500, `${prefix}.spec.containers: duplicate entries for key [name="a"]`])
        expect(yield* serverAnswer(api.get(Pods, "p", { namespace: "default" }))).toMatchObject({ code: 404 })

        // A port's protocol defaults to TCP, in its key too: applying the same configuration again changes nothing.
        const withPort = pod([{ name: "a", image: "a:1", ports: [{ containerPort: 80 }] }])
        const created = yield* api.patch(Pods, "p", "apply", withPort, at("tool"))
        expect(created.code).toBe(201)
        const owned = (created.object.metadata.managedFields as Array<{ fieldsV1: any }>)[0]!.fieldsV1["f:spec"]["f:containers"]['k:{"name":"a"}']["f:ports"]
        expect(Object.keys(owned)).toEqual(['k:{"containerPort":80,"protocol":"TCP"}'])
        const again = yield* api.patch(Pods, "p", "apply", withPort, at("tool"))
        expect((again.object.spec as any).containers[0].ports).toEqual([{ containerPort: 80, protocol: "TCP" }])
        expect(again.object.metadata.resourceVersion).toBe(created.object.metadata.resourceVersion)
      })
    ))
})
