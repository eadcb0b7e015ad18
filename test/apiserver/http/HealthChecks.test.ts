/**
 * `/healthz`, `/livez`, `/readyz` as upstream's `server/healthz/healthz.go` answers them: `ok`, the verbose list of
 * checks, `exclude`, the per-check paths, and a failing check's 500 with its reason withheld.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { answerHealth, type HealthCheck } from "../../../simulator/apiserver/http/HealthChecks.js"
import { httpServer } from "../../support/transports.js"
import { send } from "../../support/wire.js"

const q = (s = "") => new URLSearchParams(s)

describe("answerHealth (handleRootHealth, adaptCheckToHandler)", () => {
  it("ok; verbose lists each check and ends with `<endpoint> check passed`; exclude skips one and warns of the unknown", () => {
    expect(answerHealth("livez", undefined, q())).toEqual({ code: 200, body: "ok" })
    expect(answerHealth("livez", undefined, q("verbose"))).toEqual({ code: 200, body: "[+]ping ok\n[+]log ok\nlivez check passed\n" })
    expect(answerHealth("readyz", undefined, q("verbose=false"))).toEqual({ code: 200, body: "[+]ping ok\n[+]log ok\nreadyz check passed\n" })
    expect(answerHealth("healthz", undefined, q("verbose&exclude=log&exclude=zeta&exclude=alpha"))).toEqual({
      code: 200,
      body: '[+]ping ok\n[+]log excluded: ok\nwarn: some health checks cannot be excluded: no matches for "alpha","zeta"\nhealthz check passed\n'
    })
    // without verbose an exclusion still answers just ok
    expect(answerHealth("healthz", undefined, q("exclude=nope"))).toEqual({ code: 200, body: "ok" })
  })

  it("each check at its own path; an unknown check is the 404 page", () => {
    expect(answerHealth("livez", "ping", q())).toEqual({ code: 200, body: "ok" })
    expect(answerHealth("readyz", "log", q())).toEqual({ code: 200, body: "ok" })
    expect(answerHealth("healthz", "etcd", q())).toEqual({ code: 404, body: "404 page not found\n" })
  })

  it("a failing check: 500, always verbose, its reason withheld at the root and told at its own path; excluded, it passes", () => {
    const checks: ReadonlyArray<HealthCheck> = [
      { name: "ping", check: () => undefined },
      { name: "shutdown", check: () => "process is shutting down" }
    ]
    expect(answerHealth("readyz", undefined, q(), checks)).toEqual({ code: 500, body: "[+]ping ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n" })
    expect(answerHealth("readyz", "shutdown", q(), checks)).toEqual({ code: 500, body: "internal server error: process is shutting down\n" })
    expect(answerHealth("readyz", undefined, q("exclude=shutdown"), checks)).toEqual({ code: 200, body: "ok" })
  })
})

describe("health endpoints over HTTP", () => {
  it.scoped("as kubectl get --raw reads them: plain text, nosniff", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      for (const endpoint of ["healthz", "livez", "readyz"]) {
        const verbose = yield* send(base, "GET", `/${endpoint}?verbose`)
        expect([verbose.code, verbose.text]).toEqual([200, `[+]ping ok\n[+]log ok\n${endpoint} check passed\n`])
        expect(verbose.headers["content-type"]).toBe("text/plain; charset=utf-8")
        expect(verbose.headers["x-content-type-options"]).toBe("nosniff")
        const ping = yield* send(base, "GET", `/${endpoint}/ping`)
        expect([ping.code, ping.text]).toEqual([200, "ok"])
      }
      const missing = yield* send(base, "GET", "/livez/etcd")
      expect([missing.code, missing.text]).toEqual([404, "404 page not found\n"])
      const excluded = yield* send(base, "GET", "/readyz?verbose&exclude=ping")
      expect(excluded.text).toBe("[+]ping excluded: ok\n[+]log ok\nreadyz check passed\n")
    }))
})
