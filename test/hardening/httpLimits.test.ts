/**
 * The HTTP server's limits (docs/limits.md): slow or idle connections are closed, a connection flood is
 * refused with a Status, oversized headers get 431, CONNECT and unknown methods 405, a malformed request line 400, and a non-watch
 * request that cannot finish gets upstream's 504.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import * as net from "node:net"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import type { ServerLimits } from "../../simulator/apiserver/http/Limits.js"
import { send } from "../support/wire.js"

const serverWith = (limits: Partial<ServerLimits>) =>
  serveHttp({ host: "127.0.0.1", port: 0, admin: true, limits }).pipe(Effect.provide(ApiServer.layer()))

/** Opens a raw connection, writes `chunks`, and collects what comes back until the server closes it. */
const raw = (port: number, chunks: ReadonlyArray<string>, giveUpMs = 5_000) =>
  Effect.promise(
    () =>
      new Promise<{ readonly text: string; readonly closedAfterMs: number; readonly closed: boolean }>((resolve) => {
        const started = performance.now()
        const socket = net.connect(port, "127.0.0.1")
        let text = ""
        const giveUp = setTimeout(() => {
          socket.destroy()
          resolve({ text, closedAfterMs: performance.now() - started, closed: false })
        }, giveUpMs)
        socket.on("data", (d) => (text += d.toString("latin1")))
        socket.on("error", () => {})
        socket.on("close", () => {
          clearTimeout(giveUp)
          resolve({ text, closedAfterMs: performance.now() - started, closed: true })
        })
        socket.on("connect", () => chunks.forEach((c) => socket.write(c)))
      })
  )

const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4))

describe("HTTP limits", () => {
  it.live("a client that never finishes its headers is cut off, even with the request timeout off", () =>
    Effect.gen(function* () {
      const { port } = yield* serverWith({ headersTimeoutMs: 300, requestTimeoutMs: 0 })
      const slow = yield* raw(port, ["GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Slow: 1"])
      // Go's read timeout on the headers: closed without a byte (net/http conn.serve, isCommonNetReadError).
      expect([slow.closed, slow.text]).toEqual([true, ""])
      expect(slow.closedAfterMs).toBeLessThan(2_500)
    }).pipe(Effect.scoped))

  it.live("an unfinished body is cut off at the request timeout", () =>
    Effect.gen(function* () {
      const { port } = yield* serverWith({ headersTimeoutMs: 200, requestTimeoutMs: 400 })
      const partial = yield* raw(port, [
        "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"metadata\""
      ])
      expect(partial.closed).toBe(true)
      // the request timeout's Status alone (docs/limits.md), then closed: no second, bare 408 after it
      expect(partial.text.startsWith("HTTP/1.1 504 Gateway Timeout")).toBe(true)
      expect(bodyOf(partial.text)).toMatchObject({ kind: "Status", code: 504, reason: "Timeout" })
      expect(partial.closedAfterMs).toBeLessThan(3_000)
    }).pipe(Effect.scoped))

  it.live("an idle keep-alive connection is closed", () =>
    Effect.gen(function* () {
      const { port } = yield* serverWith({ idleTimeoutMs: 200 })
      const idle = yield* raw(port, ["GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"])
      expect(idle.closed).toBe(true)
      expect(idle.text).toContain("200 OK")
      expect(idle.closedAfterMs).toBeLessThan(2_000)
    }).pipe(Effect.scoped))

  it.live("past the connection cap a new connection is answered 429 with a Status and closed", () =>
    Effect.gen(function* () {
      const { port, url } = yield* serverWith({ maxConnections: 2 })
      const held = [net.connect(port, "127.0.0.1"), net.connect(port, "127.0.0.1")]
      yield* Effect.addFinalizer(() => Effect.sync(() => held.forEach((s) => s.destroy())))
      yield* Effect.promise(() => Promise.all(held.map((s) => new Promise((r) => s.on("connect", r)))))
      yield* Effect.sleep("50 millis")
      const refused = yield* raw(port, ["GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n\r\n"])
      expect(refused.text.startsWith("HTTP/1.1 429 Too Many Requests")).toBe(true)
      expect(refused.text).toContain("Retry-After: 1")
      expect(bodyOf(refused.text)).toMatchObject({ kind: "Status", code: 429, reason: "TooManyRequests", message: "Too many requests, please try again later." })
      held.forEach((s) => s.destroy())
      yield* Effect.sleep("50 millis")
      expect((yield* send(url, "GET", "/api/v1/namespaces")).code).toBe(200)
    }).pipe(Effect.scoped))

  it.live("CONNECT and unknown methods: 405 Status; oversized headers: 431", () =>
    Effect.gen(function* () {
      const { port } = yield* serverWith({ maxHeaderBytes: 4096 })
      for (const method of ["CONNECT example.com:443", "FOO /api/v1/namespaces"]) {
        const reply = yield* raw(port, [`${method} HTTP/1.1\r\nHost: x\r\n\r\n`])
        expect(reply.text.startsWith("HTTP/1.1 405 Method Not Allowed")).toBe(true)
        expect(bodyOf(reply.text)).toMatchObject({
          kind: "Status",
          code: 405,
          reason: "MethodNotAllowed",
          message: "the server does not allow this method on the requested resource"
        })
      }
      // A request line Go cannot parse (no target, no version) is its plain 400, never routed.
      for (const line of ["GARBAGE", "GARBAGE /api/v1/namespaces", "FOO /api/v1/namespaces HTTP/1.1 extra"]) {
        const garbage = yield* raw(port, [`${line}\r\n\r\n`])
        expect([garbage.text.split("\r\n")[0], garbage.text.slice(garbage.text.indexOf("\r\n\r\n") + 4)], line).toEqual(["HTTP/1.1 400 Bad Request", "400 Bad Request"])
      }
      const big = yield* raw(port, [`GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(8192)}\r\n\r\n`])
      expect(big.text.startsWith("HTTP/1.1 431 Request Header Fields Too Large")).toBe(true)
    }).pipe(Effect.scoped))

  it.scoped("a non-watch request not answered within the request timeout: upstream's 504 Status", () =>
    Effect.gen(function* () {
      const { url } = yield* serverWith({ requestTimeoutMs: 60_000 })
      expect((yield* send(url, "POST", "/clustersim/pause?seconds=120")).code).toBe(200)
      const waiting = yield* Effect.fork(send(url, "GET", "/api/v1/namespaces/default"))
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
      yield* TestClock.adjust("60 seconds")
      const reply = yield* Fiber.join(waiting)
      expect([reply.code, reply.json]).toEqual([
        504,
        {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "Timeout: request did not complete within requested timeout - context deadline exceeded",
          reason: "Timeout",
          details: {},
          code: 504
        }
      ])
    }))

  it.scoped("the `timeout` parameter (filters/request_deadline.go): a malformed one is a 400 before authentication; a shorter one is the request's deadline", () =>
    Effect.gen(function* () {
      const { url } = yield* serverWith({ requestTimeoutMs: 60_000 })
      const badRequest = (message: string) => ({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason: "BadRequest", code: 400 })
      const cms = "/api/v1/namespaces/default/configmaps"
      for (const [value, why] of [
        ["abc", 'time: invalid duration "abc"'],
        ["5", 'time: missing unit in duration "5"'],
        ["1x", 'time: unknown unit "x" in duration "1x"']
      ] as const) {
        const reply = yield* send(url, "GET", `${cms}?timeout=${value}`)
        expect([value, reply.code, reply.json]).toEqual([value, 400, badRequest(`invalid timeout specified in the request URL - ${why}`)])
      }
      // every non-long-running request, a non-resource path too; the first value is read, as `url.Values.Get`
      expect((yield* send(url, "GET", "/version?timeout=abc")).code).toBe(400)
      expect((yield* send(url, "GET", `${cms}?timeout=1s&timeout=abc`)).code).toBe(200)
      // 0, a negative value, or one past the server's own: the server's request timeout holds
      for (const value of ["0", "-1s", "2h", ""]) expect([value, (yield* send(url, "GET", `${cms}?timeout=${value}`)).code]).toEqual([value, 200])
      // watches have timeoutSeconds: their `timeout` is not read
      const controller = new AbortController()
      const watch = yield* Effect.promise(() => fetch(`${url}${cms}?watch=true&timeout=abc`, { signal: controller.signal }))
      expect(watch.status).toBe(200)
      controller.abort()
      // a paused server: the request's own deadline (5 s) passes long before the server's (60 s)
      expect((yield* send(url, "POST", "/clustersim/pause?seconds=120")).code).toBe(200)
      const waiting = yield* Effect.fork(send(url, "GET", "/api/v1/namespaces/default?timeout=5s"))
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
      yield* TestClock.adjust("5 seconds")
      const reply = yield* Fiber.join(waiting)
      expect([reply.code, reply.json?.reason, reply.json?.message]).toEqual([504, "Timeout", "Timeout: request did not complete within requested timeout - context deadline exceeded"])
    }))

  it.scoped("all-namespaces collection paths serve list and watch only; admin pause checks its bound", () =>
    Effect.gen(function* () {
      const { url } = yield* serverWith({})
      const body = JSON.stringify({ metadata: { name: "x", namespace: "default" } })
      for (const [method, path] of [
        ["POST", "/api/v1/configmaps"],
        ["DELETE", "/api/v1/configmaps?labelSelector=a%3Db"],
        ["PUT", "/apis/apps/v1/deployments"],
        ["PATCH", "/apis/coordination.platform/v1/leases"]
      ] as const) {
        const reply = yield* send(url, method, path, { body: method === "DELETE" ? undefined : body, headers: { "content-type": "application/json" } })
        expect([method, path, reply.code, reply.json?.reason]).toEqual([method, path, 405, "MethodNotAllowed"])
      }
      expect((yield* send(url, "GET", "/api/v1/configmaps")).code).toBe(200)
      expect((yield* send(url, "GET", "/api/v1/namespaces/default/configmaps/x")).code).toBe(404)
      for (const seconds of ["1e300", "-1", "abc", "3601", "0", "Infinity"]) {
        const reply = yield* send(url, "POST", `/clustersim/pause?seconds=${seconds}`)
        expect([reply.code, reply.json?.message]).toEqual([400, `seconds: must be a number of seconds in (0, 3600], got "${seconds}"`])
      }
    }))
})
