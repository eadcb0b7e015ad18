/**
 * Updates are validated as creates are (issue 36): metadata a POST refuses is refused by PUT, by every patch type
 * and by server-side apply, with upstream's 422 text; the object stays as it was and the server stays healthy.
 * A malformed owner reference, once storable, made every later orphan or foreground DELETE of any object a 500.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { httpServer } from "../support/transports.js"
import { send } from "../support/wire.js"
import { healthz, statusOf } from "./liveness.js"

const json = { "content-type": "application/json" }
const path = "/api/v1/namespaces/default/configmaps"

const qualifiedName =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

interface Attack {
  readonly name: string
  readonly field: string
  readonly value: unknown
  /** Upstream's 422 message for an update. */
  readonly message: string
  /** A create's, where it differs (create checks finalizer names twice: `ValidateFinalizers`, then the core rule). */
  readonly createMessage?: string
  /** Apply's answer, where it differs. */
  readonly apply?: { readonly code: number; readonly reason: string | undefined; readonly message: string }
}

/** Metadata a create refuses, and upstream's answers. */
const attacks: ReadonlyArray<Attack> = [
  { name: "a label key that is no qualified name", field: "labels", value: { $bad: "x" }, message: `metadata.labels: Invalid value: "$bad": ${qualifiedName}` },
  {
    name: "a 100-character label value",
    field: "labels",
    value: { long: "v".repeat(100) },
    message: `metadata.labels: Invalid value: "${"v".repeat(100)}": must be no more than 63 characters`
  },
  { name: "400 KB of annotations", field: "annotations", value: { big: "a".repeat(400 * 1024) }, message: "metadata.annotations: Too long: must have at most 262144 bytes" },
  {
    name: "a finalizer that is no qualified name",
    field: "finalizers",
    value: ["not a valid finalizer!!"],
    message: `[metadata.finalizers[0]: Invalid value: "not a valid finalizer!!": ${qualifiedName}, metadata.finalizers[0]: Invalid value: "not a valid finalizer!!": name is neither a standard finalizer name nor is it fully qualified]`,
    createMessage: `[metadata.finalizers: Invalid value: "not a valid finalizer!!": ${qualifiedName}, metadata.finalizers[0]: Invalid value: "not a valid finalizer!!": ${qualifiedName}, metadata.finalizers[0]: Invalid value: "not a valid finalizer!!": name is neither a standard finalizer name nor is it fully qualified]`
  },
  {
    name: "a null owner reference",
    field: "ownerReferences",
    value: [null],
    message:
      '[metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty, metadata.ownerReferences.kind: Invalid value: "": kind must not be empty, metadata.ownerReferences.name: Invalid value: "": name must not be empty, metadata.ownerReferences.uid: Invalid value: "": uid must not be empty]',
    // Apply converts the configuration to a typed value first, which refuses a null keyed-list element with a
    // plain error: a 500 without a reason upstream (docs/stock-clients.md), nothing stored.
    apply: {
      code: 500,
      reason: undefined,
      message: "failed to create typed patch object (/target; /v1, Kind=ConfigMap): .metadata.ownerReferences: element 0: associative list with keys may not have a null element"
    }
  }
]

/** The writes that change an existing object: PUT, the three patch types and apply. */
const writes = (stored: any, field: string, value: unknown) => [
  { how: "PUT", method: "PUT", query: "", type: "application/json", body: { ...stored, metadata: { ...stored.metadata, [field]: value } } },
  { how: "merge patch", method: "PATCH", query: "", type: "application/merge-patch+json", body: { metadata: { [field]: value } } },
  { how: "strategic merge patch", method: "PATCH", query: "", type: "application/strategic-merge-patch+json", body: { metadata: { [field]: value } } },
  { how: "JSON patch", method: "PATCH", query: "", type: "application/json-patch+json", body: [{ op: "add", path: `/metadata/${field}`, value }] },
  {
    how: "apply",
    method: "PATCH",
    query: "?fieldManager=attacker",
    type: "application/apply-patch+yaml",
    body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "target", [field]: value } }
  }
]

const setUp = (base: string) =>
  Effect.gen(function* () {
    const made = yield* send(base, "POST", path, { body: JSON.stringify({ metadata: { name: "target", labels: { a: "b" } }, data: { k: "v" } }), headers: json })
    expect(made.code).toBe(201)
    return (yield* send(base, "GET", `${path}/target`)).json
  })

describe("updates validated as creates", () => {
  for (const attack of attacks) {
    it.scoped(`${attack.name}: 422 from PUT, every patch type and apply; the object unchanged`, () =>
      Effect.gen(function* () {
        const base = yield* httpServer()
        const stored = yield* setUp(base)
        for (const write of writes(stored, attack.field, attack.value)) {
          const reply = yield* send(base, write.method, `${path}/target${write.query}`, { body: JSON.stringify(write.body), headers: { "content-type": write.type } })
          const expected =
            write.how === "apply" && attack.apply ? attack.apply : { code: 422, reason: "Invalid", message: `ConfigMap "target" is invalid: ${attack.message}` }
          expect({ how: write.how, ...statusOf(reply) }).toEqual({ how: write.how, kind: "Status", ...expected })
          expect((yield* send(base, "GET", `${path}/target`)).json).toEqual(stored)
          expect(yield* healthz(base)).toEqual({ code: 200, fast: true })
        }
        // A create says the same.
        const created = yield* send(base, "POST", path, { body: JSON.stringify({ metadata: { name: "fresh", [attack.field]: attack.value } }), headers: json })
        expect(statusOf(created)).toEqual({ code: 422, kind: "Status", reason: "Invalid", message: `ConfigMap "fresh" is invalid: ${attack.createMessage ?? attack.message}` })
      }))
  }

  it.scoped("identity is immutable: a changed uid, a deletionTimestamp or grace period set by an update is 422 'field is immutable'", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const stored = yield* setUp(base)
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ uid: "not-the-uid" }, 'metadata.uid: Invalid value: "not-the-uid": field is immutable'],
        [{ deletionTimestamp: "2020-01-01T00:00:00Z" }, "metadata.deletionTimestamp: Invalid value: 2020-01-01 00:00:00 +0000 UTC: field is immutable"],
        [{ deletionGracePeriodSeconds: 30 }, "metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable"]
      ]
      for (const [change, message] of cases) {
        for (const [method, type, body] of [
          ["PUT", "application/json", { ...stored, metadata: { ...stored.metadata, ...change } }],
          ["PATCH", "application/merge-patch+json", { metadata: change }]
        ] as const) {
          const reply = yield* send(base, method, `${path}/target`, { body: JSON.stringify(body), headers: { "content-type": type } })
          expect(statusOf(reply)).toEqual({ code: 422, kind: "Status", reason: "Invalid", message: `ConfigMap "target" is invalid: ${message}` })
        }
      }
      expect((yield* send(base, "GET", `${path}/target`)).json).toEqual(stored)
      // The stored uid and timestamps sent back as read (or left out) are fine.
      const { uid: _u, creationTimestamp: _c, ...rest } = stored.metadata
      const put = yield* send(base, "PUT", `${path}/target`, { body: JSON.stringify({ ...stored, metadata: { ...rest, labels: { a: "c" } } }), headers: json })
      expect(put.code).toBe(200)
      expect(put.json.metadata).toMatchObject({ uid: stored.metadata.uid, creationTimestamp: stored.metadata.creationTimestamp, labels: { a: "c" } })
    }))

  it.scoped("after a refused null owner reference, orphan and foreground deletes of other objects answer 200 and finish", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* setUp(base)
      const refused = yield* send(base, "PATCH", `${path}/target`, { body: '{"metadata":{"ownerReferences":[null]}}', headers: { "content-type": "application/merge-patch+json" } })
      expect(refused.code).toBe(422)
      for (const policy of ["Orphan", "Foreground"]) {
        const name = `victim-${policy.toLowerCase()}`
        expect((yield* send(base, "POST", path, { body: JSON.stringify({ metadata: { name } }), headers: json })).code).toBe(201)
        const deleted = yield* send(base, "DELETE", `${path}/${name}?propagationPolicy=${policy}`)
        expect(deleted.code).toBe(200)
        // Nothing is left stuck with a deletionTimestamp: the garbage-collection step removed its finalizer.
        expect((yield* send(base, "GET", `${path}/${name}`)).code).toBe(404)
      }
      expect(yield* healthz(base)).toEqual({ code: 200, fast: true })
    }))
})
