/**
 * The connection cap as an attack (docs/limits.md "Open connections"; issue 36, item 9): connections past the cap
 * that never read their 429 are gone within `closingGraceMs`, and over HTTPS connections that never start a
 * handshake count toward the cap. After each attack the server still answers /healthz at once.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import * as https from "node:https"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { generatePki } from "../../simulator/apiserver/auth/Certificates.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { closingGraceMs } from "../../simulator/apiserver/http/Limits.js"

const connectIdle = (port: number) =>
  Effect.promise(
    () =>
      new Promise<net.Socket>((resolve) => {
        // never reads, never writes: the attacker's socket
        const s = net.connect(port, "127.0.0.1")
        s.on("connect", () => resolve(s))
        s.on("error", () => {})
      })
  )

const connections = (server: net.Server) => Effect.promise(() => new Promise<number>((resolve) => server.getConnections((_e, n) => resolve(n))))

const httpsGet = (port: number, ca: string, path: string) =>
  Effect.promise(
    () =>
      new Promise<{ readonly code: number; readonly body: string; readonly ms: number }>((resolve) => {
        const started = performance.now()
        const req = https.get({ host: "127.0.0.1", port, path, ca, agent: false }, (res) => {
          let body = ""
          res.on("data", (d) => (body += d))
          res.on("end", () => resolve({ code: res.statusCode ?? 0, body, ms: performance.now() - started }))
        })
        req.on("error", (e) => resolve({ code: 0, body: e.message, ms: performance.now() - started }))
      })
  )

describe("connection cap attacks", () => {
  it.live("connections past the cap that never read their 429 do not hold descriptors past the grace", () =>
    Effect.gen(function* () {
      const { port, server } = yield* serveHttp({ host: "127.0.0.1", port: 0, admin: false, limits: { maxConnections: 2 } }).pipe(Effect.provide(ApiServer.layer()))
      const sockets = []
      for (let i = 0; i < 12; i++) sockets.push(yield* connectIdle(port))
      yield* Effect.sleep(closingGraceMs + 700)
      // the 2 within the cap stay (until the header timeout); the 10 refused are closed
      expect(yield* connections(server)).toBe(2)
      for (const s of sockets) s.destroy()
    }).pipe(Effect.scoped))

  it.live("over HTTPS, connections that never start a handshake count toward the cap; the server answers again once they go", () =>
    Effect.gen(function* () {
      const pki = yield* Effect.orDie(generatePki(join(mkdtempSync(join(tmpdir(), "clustersim-cap-")), "pki"), "127.0.0.1"))
      const { port } = yield* serveHttp({ host: "127.0.0.1", port: 0, admin: false, tls: pki.tls, limits: { maxConnections: 2 } }).pipe(
        Effect.provide(ApiServer.layer())
      )
      const idle = [yield* connectIdle(port), yield* connectIdle(port)]
      yield* Effect.sleep(100)
      const refused = yield* httpsGet(port, pki.tls.clientCa!, "/healthz")
      expect(refused.code).toBe(429)
      expect(JSON.parse(refused.body)).toMatchObject({ kind: "Status", code: 429, reason: "TooManyRequests", message: "Too many requests, please try again later." })
      for (const s of idle) s.destroy()
      yield* Effect.sleep(100)
      const healthy = yield* httpsGet(port, pki.tls.clientCa!, "/healthz")
      expect([healthy.code, healthy.body]).toEqual([200, "ok"])
      expect(healthy.ms).toBeLessThan(100)
    }).pipe(Effect.scoped))
})
