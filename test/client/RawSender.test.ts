/**
 * The HTTP client's raw requests (ApiClientService.raw, what a replay sends): any answer is a value with its code and
 * a failure's Status message; asked for, a 2xx answer's `metadata.resourceVersion` — what a replayed Lease update,
 * which the server refuses without one, is sent with.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ApiClient } from "../../src/client/ApiClient.js"
import { clientLayer } from "../support/transports.js"

const leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
const lease = (resourceVersion?: string) =>
  JSON.stringify({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "l", ...(resourceVersion ? { resourceVersion } : {}) }, spec: { holderIdentity: "a" } })
const json = ["content-type", "application/json"]

describe("raw requests over HTTP", () => {
  it.scoped("read a resourceVersion when asked, and carry the Status message of a refusal", () =>
    Effect.gen(function* () {
      const raw = (yield* ApiClient).raw!
      expect((yield* raw.send({ method: "POST", path: leases, headers: json, body: lease() })).code).toBe(201)
      const plain = yield* raw.send({ method: "GET", path: `${leases}/l`, headers: [] })
      expect(plain).toEqual({ code: 200 })
      const read = yield* raw.send({ method: "GET", path: `${leases}/l`, headers: [], readResourceVersion: true })
      expect(read.code).toBe(200)
      expect(read.resourceVersion).toMatch(/^\d+$/)
      // unconditional: upstream's 422 for a Lease; with the resourceVersion read: 200
      // upstream's text (registry/generic/registry/store.go Update) with the spec's group: error texts keep the spec's
      // names (docs/upstream-names.md "Not renamed back")
      expect(yield* raw.send({ method: "PUT", path: `${leases}/l`, headers: json, body: lease() })).toEqual({
        code: 422,
        message: 'leases.coordination.platform "l" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update'
      })
      expect((yield* raw.send({ method: "PUT", path: `${leases}/l`, headers: json, body: lease(read.resourceVersion) })).code).toBe(200)
      // a refusal has no resourceVersion to read
      expect(yield* raw.send({ method: "GET", path: `${leases}/none`, headers: [], readResourceVersion: true })).toEqual({ code: 404, message: 'leases.coordination.platform "none" not found' })
    }).pipe(Effect.provide(clientLayer("http")))
  )
})
