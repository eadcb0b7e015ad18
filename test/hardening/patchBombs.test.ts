/**
 * Patches built to exhaust the server (issue 36): a JSON patch whose copies double a value until memory runs out,
 * list merges that were cubic in the list's length, 10,000 JSON patch moves over a large array, and a strategic
 * merge patch that deletes the whole object. Each is sent to a served simulated server; each refused one is
 * answered with upstream's Status and leaves the object as it was, and the server answers /healthz at once after.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { performance } from "node:perf_hooks"
import { patchWorkSteps } from "../../src/api/patch/WorkBudget.js"
import { httpServer } from "../support/transports.js"
import { send, type Reply } from "../support/wire.js"

const json = { "content-type": "application/json" }
const jsonPatch = { "content-type": "application/json-patch+json" }
const strategic = { "content-type": "application/strategic-merge-patch+json" }
const path = "/api/v1/namespaces/default/configmaps/x"

const statusOf = (r: Reply) => ({ code: r.code, kind: r.json?.kind, reason: r.json?.reason, message: r.json?.message, details: r.json?.details })

/** The generic 422 every failed JSON patch gets (`NewGenericServerResponse(422, …, false)`): no details shown. */
const unprocessable = {
  code: 422,
  kind: "Status",
  reason: "Invalid",
  message: "the server rejected our request due to an error in our request",
  details: {}
}

const createConfigMap = (base: string, metadata: Record<string, unknown> = {}) =>
  Effect.gen(function* () {
    const body = JSON.stringify({ metadata: { name: "x", labels: { app: "a" }, ...metadata }, data: { k: "v" } })
    const created = yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", { body, headers: json })
    expect(created.code).toBe(201)
    return created.json as { metadata: Record<string, unknown>; data: unknown }
  })

/** The server is alive and the config map is as it was: /healthz within 100 ms, the object unchanged. */
const aliveAndUnchanged = (base: string, before: { metadata: Record<string, unknown>; data: unknown }) =>
  Effect.gen(function* () {
    const started = performance.now()
    const health = yield* send(base, "GET", "/healthz")
    expect(health.code).toBe(200)
    expect(performance.now() - started).toBeLessThan(100)
    const after = yield* send(base, "GET", path)
    expect(after.code).toBe(200)
    expect(after.json).toEqual(before)
  })

describe("patch bombs", () => {
  it.scoped("copies doubling a 1,000-item value 17 times: refused at 3 MiB copied with the generic 422", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const before = yield* createConfigMap(base)
      const ops = [
        { op: "add", path: "/b", value: { a: Array.from({ length: 1000 }, (_, i) => `item-${i}`) } },
        ...Array.from({ length: 17 }, (_, i) => ({ op: "copy", from: "/b", path: `/b/c${i}` })),
        { op: "remove", path: "/b" }
      ]
      const reply = yield* send(base, "PATCH", path, { body: JSON.stringify(ops), headers: jsonPatch })
      expect(statusOf(reply)).toEqual(unprocessable)
      yield* aliveAndUnchanged(base, before)
    }))

  it.scoped("copies of up to 3 MiB in all go through", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* createConfigMap(base)
      // 3 copies of a 1 MiB value (1,048,576 bytes with its quotes): exactly the limit, as json-patch counts it. The
      // copies go to a scratch field the patch removes again, so the config map stays under its own 1 MiB limit.
      const value = "v".repeat(1024 * 1024 - 2)
      const ops = [
        { op: "add", path: "/b", value },
        { op: "add", path: "/x", value: {} },
        ...[0, 1, 2].map((i) => ({ op: "copy", from: "/b", path: `/x/c${i}` })),
        { op: "remove", path: "/b" },
        { op: "remove", path: "/x" }
      ]
      const ok = yield* send(base, "PATCH", path, { body: JSON.stringify(ops), headers: jsonPatch })
      expect(ok.code).toBe(200)
      expect(ok.json.data).toEqual({ k: "v" })
      const over = [...ops.slice(0, 5), { op: "copy", from: "/data/k", path: "/x/c3" }, ...ops.slice(5)]
      expect(statusOf(yield* send(base, "PATCH", path, { body: JSON.stringify(over), headers: jsonPatch }))).toEqual(unprocessable)
    }))

  it.scoped("10,001 operations: 413 before any is applied", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const before = yield* createConfigMap(base)
      const ops = Array.from({ length: 10001 }, () => ({ op: "test", path: "/data/k", value: "v" }))
      const reply = yield* send(base, "PATCH", path, { body: JSON.stringify(ops), headers: jsonPatch })
      expect(statusOf(reply)).toEqual({
        code: 413,
        kind: "Status",
        reason: "RequestEntityTooLarge",
        message: "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001",
        details: undefined
      })
      yield* aliveAndUnchanged(base, before)
    }))

  it.scoped("10,000 moves over a 10,000-item array go through", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const before = yield* createConfigMap(base)
      const ops = [
        { op: "add", path: "/b", value: Array.from({ length: 10000 }, (_, i) => i) },
        ...Array.from({ length: 9998 }, () => ({ op: "move", from: "/b/0", path: "/b/-" })),
        { op: "remove", path: "/b" }
      ]
      const reply = yield* send(base, "PATCH", path, { body: JSON.stringify(ops), headers: jsonPatch })
      expect(reply.code).toBe(200)
      expect(reply.json.data).toEqual({ k: "v" })
      yield* aliveAndUnchanged(base, { ...before, metadata: reply.json.metadata })
    }))

  it.scoped(`moves over a 700,000-item array: refused at ${patchWorkSteps} steps with the generic 422 and a cause`, () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const before = yield* createConfigMap(base)
      const ops = [
        { op: "add", path: "/b", value: new Array(700_000).fill(0) },
        ...Array.from({ length: 9998 }, () => ({ op: "move", from: "/b/0", path: "/b/-" })),
        { op: "remove", path: "/b" }
      ]
      const reply = yield* send(base, "PATCH", path, { body: JSON.stringify(ops), headers: jsonPatch })
      expect(statusOf(reply)).toEqual({
        ...unprocessable,
        details: {
          causes: [
            {
              reason: "UnexpectedServerResponse",
              message: `the patch takes more than ${patchWorkSteps} steps of work to apply (clustersim's bound on one request's CPU time, docs/limits.md)`
            }
          ]
        }
      })
      yield* aliveAndUnchanged(base, before)
    }))

  it.scoped("reversing 3,000 finalizers by strategic merge patch, as a list and with $setElementOrder", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const finalizers = Array.from({ length: 3000 }, (_, i) => `example.com/f${i}`)
      yield* createConfigMap(base, { finalizers })
      const reversed = [...finalizers].reverse()
      const listed = yield* send(base, "PATCH", path, { body: JSON.stringify({ metadata: { finalizers: reversed } }), headers: strategic })
      expect(listed.code).toBe(200)
      expect(listed.json.metadata.finalizers).toEqual(reversed)
      const ordered = yield* send(base, "PATCH", path, { body: JSON.stringify({ metadata: { "$setElementOrder/finalizers": finalizers } }), headers: strategic })
      expect(ordered.code).toBe(200)
      expect(ordered.json.metadata.finalizers).toEqual(finalizers)
      const started = performance.now()
      expect((yield* send(base, "GET", "/healthz")).code).toBe(200)
      expect(performance.now() - started).toBeLessThan(100)
    }))

  it.scoped('{"$patch":"delete"} at a strategic merge patch\'s top: 400 as upstream\'s checkName, nothing changed', () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const before = yield* createConfigMap(base)
      for (const body of ['{"$patch":"delete"}', '{"metadata":{"$patch":"delete"}}']) {
        const reply = yield* send(base, "PATCH", path, { body, headers: strategic })
        expect(statusOf(reply)).toEqual({
          code: 400,
          kind: "Status",
          reason: "BadRequest",
          message: "the name of the object (x based on URL) was undeterminable: name must be provided",
          details: undefined
        })
      }
      // The same check for the other patch types that take the name away.
      const merge = yield* send(base, "PATCH", path, { body: '{"metadata":{"name":null}}', headers: { "content-type": "application/merge-patch+json" } })
      expect(statusOf(merge).message).toBe("the name of the object (x based on URL) was undeterminable: name must be provided")
      const removed = yield* send(base, "PATCH", path, { body: '[{"op":"remove","path":"/metadata/name"}]', headers: jsonPatch })
      expect(statusOf(removed).message).toBe("the name of the object (x based on URL) was undeterminable: name must be provided")
      yield* aliveAndUnchanged(base, before)
    }))
})
