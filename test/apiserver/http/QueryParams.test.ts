/**
 * Integer query parameters as upstream's ParameterCodec reads them (`strconv.ParseInt(v, 10, 64)`, a resource
 * version `strconv.ParseUint(v, 10, 64)`), on a list's fast path as on a watch, and a watch's negative timeout.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "undici"
import { httpServer } from "../../support/transports.js"
import { send } from "../../support/wire.js"

const list = "/api/v1/namespaces/default/configmaps"
const answer = (r: { code: number; json: any }) => [r.code, r.json?.reason, r.json?.message]

describe("query parameters", () => {
  it.scoped("a malformed or out-of-range integer is a 400 on a list as on a watch", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const syntax = [400, "BadRequest", 'timeoutSeconds: strconv.ParseInt: parsing "abc": invalid syntax']
      expect(answer(yield* send(base, "GET", `${list}?timeoutSeconds=abc`))).toEqual(syntax)
      expect(answer(yield* send(base, "GET", `${list}?watch=1&timeoutSeconds=abc`))).toEqual(syntax)
      expect(answer(yield* send(base, "GET", `${list}?limit=99999999999999999999`))).toEqual([
        400,
        "BadRequest",
        'limit: strconv.ParseInt: parsing "99999999999999999999": value out of range'
      ])
      expect((yield* send(base, "GET", `${list}?limit=9223372036854775807`)).code).toBe(200)
    }))

  it.scoped("a resource version past uint64 is the watch cache's 500 at once, not a 3 s wait for it", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const rv = "99999999999999999999999"
      const started = performance.now()
      const r = yield* send(base, "GET", `${list}?resourceVersion=${rv}`)
      expect([r.code, r.json.message]).toEqual([500, `resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": value out of range`])
      expect(performance.now() - started).toBeLessThan(1_000)
    }))

  it.scoped("a watch's negative timeoutSeconds ends it at once (Go's timer of a negative duration fires at once)", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const started = performance.now()
      const ended = yield* Effect.promise(async () => {
        const res = await request(`${base}${list}?watch=1&timeoutSeconds=-5`, { signal: AbortSignal.timeout(5_000) })
        return { code: res.statusCode, text: await res.body.text() }
      })
      expect(ended).toEqual({ code: 200, text: "" })
      expect(performance.now() - started).toBeLessThan(2_000)
    }))
})
