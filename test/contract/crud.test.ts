/** Contract tests of part 1 (store, CRUD, validation): the same assertions on both ApiClient layers. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ConfigMaps, Events, Leases, Namespaces, Nodes, Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { clientLayer, transports } from "../support/transports.js"
import { serverAnswer } from "../support/serverAnswer.js"

const cm = (name: string, data: Record<string, string> = { a: "1" }, labels?: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, ...(labels ? { labels } : {}) },
  data
})

const lease = (name: string, spec: Record<string, unknown> = { holderIdentity: "node-1", leaseDurationSeconds: 40 }) => ({
  apiVersion: "coordination.platform/v1",
  kind: "Lease",
  metadata: { name },
  spec
})

describe.each(transports)("CRUD over %s", (transport) => {
  const run = <A, E>(effect: Effect.Effect<A, E, ApiClient>) => effect.pipe(Effect.provide(clientLayer(transport)))

  it.effect("create sets system metadata and returns 201", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const created = yield* api.create(ConfigMaps, cm("settings"), { namespace: "default" })
        expect(created.code).toBe(201)
        const meta = created.object.metadata
        expect(created.object.kind).toBe("ConfigMap")
        expect(created.object.apiVersion).toBe("v1")
        expect(meta.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
        expect(meta.creationTimestamp).toBe("1970-01-01T00:00:00Z")
        expect(meta.namespace).toBe("default")
        expect(Number(meta.resourceVersion)).toBeGreaterThan(0)
        const got = yield* api.get(ConfigMaps, "settings", { namespace: "default" })
        expect(got).toEqual(created.object)
      })
    ))

  it.effect("client-sent uid, creationTimestamp and deletionTimestamp are cleared on create", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const created = yield* api.create(
          ConfigMaps,
          { metadata: { name: "x", uid: "mine", creationTimestamp: "2001-01-01T00:00:00Z", deletionTimestamp: "2001-01-01T00:00:00Z" } },
          { namespace: "default" }
        )
        expect(created.object.metadata.uid).not.toBe("mine")
        expect(created.object.metadata.creationTimestamp).toBe("1970-01-01T00:00:00Z")
        expect(created.object.metadata.deletionTimestamp).toBeUndefined()
      })
    ))

  it.effect("one global revision across types; each write bumps it by one", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const a = yield* api.create(ConfigMaps, cm("a"), { namespace: "default" })
        const b = yield* api.create(Leases, lease("b"), { namespace: "default" })
        const c = yield* api.create(Nodes, { metadata: { name: "n1" } })
        const rv = (o: { object: { metadata: { resourceVersion?: string } } }) => Number(o.object.metadata.resourceVersion)
        expect(rv(b)).toBe(rv(a) + 1)
        expect(rv(c)).toBe(rv(b) + 1)
        const list = yield* api.list(Pods)
        expect(list.metadata.resourceVersion).toBe(String(rv(c)))
      })
    ))

  it.effect("no-op update keeps the resource version", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const created = yield* api.create(ConfigMaps, cm("same"), { namespace: "default" })
        const again = yield* api.update(ConfigMaps, created.object, { namespace: "default" })
        expect(again.code).toBe(200)
        expect(again.object.metadata.resourceVersion).toBe(created.object.metadata.resourceVersion)
        const changed = yield* api.update(ConfigMaps, { ...created.object, data: { a: "2" } }, { namespace: "default" })
        expect(Number(changed.object.metadata.resourceVersion)).toBe(Number(created.object.metadata.resourceVersion) + 1)
      })
    ))

  it.effect("generateName: first 58 characters plus 5 from the name alphabet", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const prefix = "x".repeat(70)
        const created = yield* api.create(ConfigMaps, { metadata: { generateName: prefix } }, { namespace: "default" })
        expect(created.object.metadata.name).toMatch(new RegExp(`^${"x".repeat(58)}[bcdfghjklmnpqrstvwxz2456789]{5}$`))
        const short = yield* api.create(ConfigMaps, { metadata: { generateName: "web-" } }, { namespace: "default" })
        expect(short.object.metadata.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/)
      })
    ))

  it.effect("409 AlreadyExists, 404 for a missing namespace, 422 without a name", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        yield* api.create(Leases, lease("dup"), { namespace: "default" })
        const dup = yield* serverAnswer(api.create(Leases, lease("dup"), { namespace: "default" }))
        expect(dup.status).toEqual({
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: 'leases.coordination.platform "dup" already exists',
          reason: "AlreadyExists",
          details: { name: "dup", group: "coordination.platform", kind: "leases" },
          code: 409
        })
        const missing = yield* serverAnswer(api.create(ConfigMaps, cm("x"), { namespace: "nope" }))
        expect(missing.status).toEqual({
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: 'namespaces "nope" not found',
          reason: "NotFound",
          details: { name: "nope", kind: "namespaces" },
          code: 404
        })
        const nameless = yield* serverAnswer(api.create(ConfigMaps, { metadata: {} }, { namespace: "default" }))
        expect(nameless.code).toBe(422)
        expect(nameless.message).toBe('ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required')
      })
    ))

  it.effect("get of a missing object: 404 with upstream's Status", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const err = yield* serverAnswer(api.get(Leases, "x", { namespace: "default" }))
        expect(err.status).toEqual({
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: 'leases.coordination.platform "x" not found',
          reason: "NotFound",
          details: { name: "x", group: "coordination.platform", kind: "leases" },
          code: 404
        })
        const pod = yield* serverAnswer(api.get(Pods, "p", { namespace: "default" }))
        expect(pod.message).toBe('pods "p" not found')
        expect(pod.status.details).toEqual({ name: "p", kind: "pods" })
      })
    ))

  it.effect("update: 409 on a stale resourceVersion, 422 for a Lease without one, create-on-update 201", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const created = yield* api.create(Leases, lease("l1"), { namespace: "default" })
        yield* api.update(Leases, { ...created.object, spec: { holderIdentity: "node-2", leaseDurationSeconds: 40 } }, { namespace: "default" })
        const stale = yield* serverAnswer(api.update(Leases, created.object, { namespace: "default" }))
        expect(stale.status).toEqual({
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message:
            'Operation cannot be fulfilled on leases.coordination.platform "l1": the object has been modified; please apply your changes to the latest version and try again',
          reason: "Conflict",
          details: { name: "l1", group: "coordination.platform", kind: "leases" },
          code: 409
        })
        const noRv = yield* serverAnswer(api.update(Leases, lease("l1"), { namespace: "default" }))
        expect(noRv.code).toBe(422)
        expect(noRv.message).toBe(
          'leases.coordination.platform "l1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update'
        )
        expect(noRv.status.details).toEqual({
          name: "l1",
          group: "coordination.platform",
          kind: "leases",
          causes: [{ reason: "FieldValueInvalid", message: "Invalid value: 0x0: must be specified for an update", field: "metadata.resourceVersion" }]
        })
        const createdByPut = yield* api.update(Leases, lease("new"), { namespace: "default" })
        expect(createdByPut.code).toBe(201)
        const podPut = yield* serverAnswer(api.update(Pods, { metadata: { name: "ghost" }, spec: {} }, { namespace: "default" }))
        expect(podPut.code).toBe(404)
        // ConfigMaps allow unconditional update
        yield* api.create(ConfigMaps, cm("free"), { namespace: "default" })
        const free = yield* api.update(ConfigMaps, cm("free", { a: "9" }), { namespace: "default" })
        expect(free.object.data).toEqual({ a: "9" })
      })
    ))

  it.effect("patch: merge and JSON patch; a failing JSON-patch test is 422", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        yield* api.create(ConfigMaps, cm("p", { a: "1", b: "2" }), { namespace: "default" })
        const merged = yield* api.patch(ConfigMaps, "p", "merge", { data: { b: null, c: "3" } }, { namespace: "default" })
        expect(merged.code).toBe(200)
        expect(merged.object.data).toEqual({ a: "1", c: "3" })
        const jsonPatched = yield* api.patch(ConfigMaps, "p", "json", [{ op: "replace", path: "/data/a", value: "x" }], { namespace: "default" })
        expect(jsonPatched.object.data).toEqual({ a: "x", c: "3" })
        const failed = yield* serverAnswer(api.patch(ConfigMaps, "p", "json", [{ op: "test", path: "/data/a", value: "nope" }], { namespace: "default" }))
        expect(failed.code).toBe(422)
        expect(failed.message).toBe("the server rejected our request due to an error in our request")
        const missing = yield* serverAnswer(api.patch(ConfigMaps, "zz", "merge", { data: {} }, { namespace: "default" }))
        expect(missing.message).toBe('configmaps "zz" not found')
      })
    ))

  it.effect("delete without finalizers: 200 Success Status without a code; deletecollection", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const created = yield* api.create(Leases, lease("gone"), { namespace: "default" })
        const deleted = yield* api.delete(Leases, "gone", { namespace: "default" })
        expect(deleted.code).toBe(200)
        expect(deleted.status).toEqual({
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Success",
          details: { name: "gone", group: "coordination.platform", kind: "leases", uid: created.object.metadata.uid }
        })
        const again = yield* serverAnswer(api.delete(Leases, "gone", { namespace: "default" }))
        expect(again.code).toBe(404)
        yield* api.create(ConfigMaps, cm("k1", {}, { tier: "x" }), { namespace: "default" })
        yield* api.create(ConfigMaps, cm("k2", {}, { tier: "x" }), { namespace: "default" })
        yield* api.create(ConfigMaps, cm("k3", {}, { tier: "y" }), { namespace: "default" })
        const removed = yield* api.deleteCollection(ConfigMaps, { namespace: "default", labelSelector: "tier=x" })
        expect(removed.kind).toBe("ConfigMapList")
        expect(removed.items.map((i) => i.metadata.name)).toEqual(["k1", "k2"])
        const left = yield* api.list(ConfigMaps, { namespace: "default" })
        expect(left.items.map((i) => i.metadata.name)).toEqual(["k3"])
      })
    ))

  it.effect("fieldValidation: Warn (default) warns per unknown field, Strict is 400, Ignore is silent", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const body = lease("fv", { holderIdentity: "a", leaseDurationSeconds: 10, foo: 1, preferredHolder: "b" })
        const warned = yield* api.create(Leases, body, { namespace: "default" })
        expect(warned.warnings).toEqual(['unknown field "spec.foo"', 'unknown field "spec.preferredHolder"'])
        expect(warned.object.spec).toEqual({ holderIdentity: "a", leaseDurationSeconds: 10 })
        const strict = yield* serverAnswer(api.create(Leases, lease("fv2", { foo: 1 }), { namespace: "default", fieldValidation: "Strict" }))
        expect(strict.code).toBe(400)
        expect(strict.reason).toBe("BadRequest")
        expect(strict.message).toBe('Lease in version "v1" cannot be handled as a Lease: strict decoding error: unknown field "spec.foo"')
        const ignored = yield* api.create(Leases, lease("fv3", { foo: 1 }), { namespace: "default", fieldValidation: "Ignore" })
        expect(ignored.warnings).toEqual([])
        const bad = yield* serverAnswer(api.create(Leases, lease("fv4"), { namespace: "default", fieldValidation: "Loud" }))
        expect(bad.code).toBe(422)
        expect(bad.message).toBe(
          'CreateOptions.meta.platform "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"'
        )
      })
    ))

  it.effect("dryRun=All: 201 with uid and timestamp but no resourceVersion, nothing stored", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const dry = yield* api.create(ConfigMaps, cm("dry"), { namespace: "default", dryRun: ["All"] })
        expect(dry.code).toBe(201)
        expect(dry.object.metadata.uid).toBeDefined()
        expect(dry.object.metadata.resourceVersion).toBeUndefined()
        const err = yield* serverAnswer(api.get(ConfigMaps, "dry", { namespace: "default" }))
        expect(err.code).toBe(404)
        const invalid = yield* serverAnswer(api.create(Leases, lease("dry", { leaseDurationSeconds: 0 }), { namespace: "default", dryRun: ["All"] }))
        expect(invalid.code).toBe(422)
        const badDry = yield* serverAnswer(api.create(ConfigMaps, cm("dry2"), { namespace: "default", dryRun: ["foo"] }))
        expect(badDry.message).toBe('CreateOptions.meta.platform "" is invalid: dryRun: Unsupported value: []string{"foo"}: supported values: "All"')
      })
    ))

  it.effect("Lease validation: 422 with upstream's messages", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const err = yield* serverAnswer(api.create(Leases, lease("bad", { leaseDurationSeconds: 0, leaseTransitions: -1 }), { namespace: "default" }))
        expect(err.status).toEqual({
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message:
            'Lease.coordination.platform "bad" is invalid: [spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0]',
          reason: "Invalid",
          details: {
            name: "bad",
            group: "coordination.platform",
            kind: "Lease",
            causes: [
              { reason: "FieldValueInvalid", message: "Invalid value: 0: must be greater than 0", field: "spec.leaseDurationSeconds" },
              { reason: "FieldValueInvalid", message: "Invalid value: -1: must be greater than or equal to 0", field: "spec.leaseTransitions" }
            ]
          },
          code: 422
        })
      })
    ))

  it.effect("Event validation through events.platform/v1", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const ok = yield* api.create(
          Events,
          {
            metadata: { name: "e1" },
            eventTime: "2023-05-01T12:00:00.000000Z",
            reportingController: "platform.io/scheduler",
            reportingInstance: "scheduler-1",
            action: "Binding",
            reason: "Scheduled",
            type: "Normal",
            note: "Successfully assigned default/p to node-1",
            regarding: { kind: "Pod", namespace: "default", name: "p" }
          },
          { namespace: "default" }
        )
        expect(ok.code).toBe(201)
        const bad = yield* serverAnswer(
          api.create(
            Events,
            { metadata: { name: "e2" }, eventTime: "2023-05-01T12:00:00.000000Z", reportingController: "c", reportingInstance: "i", action: "A", reason: "R", type: "Bogus" },
            { namespace: "default" }
          )
        )
        expect(bad.code).toBe(422)
        expect(bad.message).toBe('Event "e2" is invalid: type: Invalid value: "": has invalid value: Bogus')
        expect(bad.status.details?.group).toBeUndefined()
      })
    ))

  it.effect("namespaces: initial set exists; deleting one removes its objects", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const list = yield* api.list(Namespaces)
        expect(list.items.map((n) => n.metadata.name)).toEqual(["default", "platform-node-lease", "platform-public", "platform-system"])
        yield* api.create(Namespaces, { metadata: { name: "team" } })
        yield* api.create(ConfigMaps, cm("c"), { namespace: "team" })
        yield* api.delete(Namespaces, "team")
        const err = yield* serverAnswer(api.get(ConfigMaps, "c", { namespace: "team" }))
        expect(err.code).toBe(404)
      })
    ))
})
