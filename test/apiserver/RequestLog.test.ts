/**
 * `serve -v`'s request log: the httplog-shaped line (simulator/apiserver/http/RequestLog.ts) and the server writing
 * one per answered request — method as upstream's metrics verb, URI, latency, user, status.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { canonicalVerb, formatRequestLog } from "../../simulator/apiserver/http/RequestLog.js"
import { parseRequest, type ParsedRequest } from "../../simulator/apiserver/RequestInfo.js"
import { send } from "../support/wire.js"

const infoOf = (method: string, url: string) => (parseRequest(method, url) as ParsedRequest).info

describe("the request log line", () => {
  it("is klog's header, then httplog's keys in its order, user before userAgent", () => {
    expect(
      formatRequestLog({
        startNanos: BigInt(Date.UTC(2026, 10, 29, 8, 58, 29)) * 1_000_000n + 123_456_789n,
        method: "GET",
        uri: "/api/v1/namespaces/default/pods?limit=500",
        info: infoOf("GET", "/api/v1/namespaces/default/pods?limit=500"),
        contentType: undefined,
        user: "alice",
        userAgent: 'kubectl/v1.27.4 (linux/amd64) "quoted"',
        srcIP: "127.0.0.1:54321",
        status: 200,
        latencyNanos: 1_234_567n
      })
    ).toBe(
      'I1129 08:58:29.123456 httplog] "HTTP" verb="LIST" URI="/api/v1/namespaces/default/pods?limit=500" latency="1.234567ms" user="alice" userAgent="kubectl/v1.27.4 (linux/amd64) \\"quoted\\"" srcIP="127.0.0.1:54321" resp=200'
    )
  })

  it("has no user when authentication failed", () => {
    const line = formatRequestLog({
      startNanos: 0n,
      method: "GET",
      uri: "/version",
      info: undefined,
      contentType: undefined,
      user: undefined,
      userAgent: undefined,
      srcIP: "[::1]:1",
      status: 401,
      latencyNanos: 2_500_000_000n
    })
    expect(line).toBe('I0101 00:00:00.000000 httplog] "HTTP" verb="GET" URI="/version" latency="2.5s" userAgent="" srcIP="[::1]:1" resp=401')
  })

  it("an audited request's line carries its audit-ID between userAgent and srcIP, as upstream's", () => {
    const line = formatRequestLog({
      startNanos: 0n,
      method: "GET",
      uri: "/version",
      info: undefined,
      contentType: undefined,
      user: "bob",
      userAgent: "curl/8",
      auditID: "3f0c2a9e-1b7d-4c55-9a31-0e8c1f2b7a10",
      srcIP: "127.0.0.1:1",
      status: 200,
      latencyNanos: 1_000n
    })
    expect(line).toBe('I0101 00:00:00.000000 httplog] "HTTP" verb="GET" URI="/version" latency="1µs" user="bob" userAgent="curl/8" audit-ID="3f0c2a9e-1b7d-4c55-9a31-0e8c1f2b7a10" srcIP="127.0.0.1:1" resp=200')
  })

  it("names the verb as upstream's metrics: LIST, WATCH, APPLY, else the method", () => {
    expect(canonicalVerb("GET", infoOf("GET", "/api/v1/pods"), undefined)).toBe("LIST")
    expect(canonicalVerb("GET", infoOf("GET", "/api/v1/namespaces/a/pods/p"), undefined)).toBe("GET")
    expect(canonicalVerb("GET", infoOf("GET", "/api/v1/pods?watch=true"), undefined)).toBe("WATCH")
    expect(canonicalVerb("GET", infoOf("GET", "/api/v1/watch/namespaces/a/pods"), undefined)).toBe("WATCH")
    expect(canonicalVerb("PATCH", infoOf("PATCH", "/api/v1/namespaces/a/pods/p"), "application/apply-patch+yaml; charset=utf-8")).toBe("APPLY")
    expect(canonicalVerb("PATCH", infoOf("PATCH", "/api/v1/namespaces/a/pods/p"), "application/merge-patch+json")).toBe("PATCH")
    expect(canonicalVerb("POST", infoOf("POST", "/api/v1/namespaces/a/pods"), "application/json")).toBe("POST")
    expect(canonicalVerb("GET", infoOf("GET", "/version"), undefined)).toBe("GET")
  })
})

const tokens = new Map([["tok-alice", { name: "alice", uid: "1", groups: ["system:masters"] }]])

describe("the server's request log", () => {
  it.live("one line per answered request, with the status, latency and user; a refused one without a user", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const { url } = yield* serveHttp({ host: "127.0.0.1", port: 0, admin: false, requestLog: (l) => void lines.push(l) }).pipe(
        Effect.provide(ApiServer.layer({ authentication: { anonymous: false, tokens } }))
      )
      const alice = { authorization: "Bearer tok-alice" }
      expect((yield* send(url, "GET", "/api/v1/namespaces/default/configmaps", { headers: alice })).code).toBe(200)
      const body = JSON.stringify({ metadata: { name: "c" } })
      expect((yield* send(url, "POST", "/api/v1/namespaces/default/configmaps", { body, headers: { ...alice, "content-type": "application/json" } })).code).toBe(201)
      expect((yield* send(url, "GET", "/api/v1/namespaces/default/configmaps/missing", { headers: alice })).code).toBe(404)
      expect((yield* send(url, "GET", "/api/v1/namespaces/default/configmaps", { headers: { authorization: "Bearer wrong" } })).code).toBe(401)
      yield* Effect.sleep(20)
      const line = /^I\d{4} \d\d:\d\d:\d\d\.\d{6} httplog\] "HTTP" verb="(\w+)" URI="([^"]+)" latency="[\d.]+(ns|µs|ms|s)"( user="(\w+)")? userAgent="[^"]*" srcIP="127\.0\.0\.1:\d+" resp=(\d+)$/
      const parsed = lines.map((l) => {
        const m = line.exec(l)
        expect(m, l).not.toBeNull()
        return [m![1], m![2], m![5], Number(m![6])]
      })
      expect(parsed).toEqual([
        ["LIST", "/api/v1/namespaces/default/configmaps", "alice", 200],
        ["POST", "/api/v1/namespaces/default/configmaps", "alice", 201],
        ["GET", "/api/v1/namespaces/default/configmaps/missing", "alice", 404],
        ["LIST", "/api/v1/namespaces/default/configmaps", undefined, 401]
      ])
    }).pipe(Effect.scoped))
})
