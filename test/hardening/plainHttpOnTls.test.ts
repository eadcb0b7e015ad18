/**
 * Plain HTTP to the HTTPS port (issue 36, item 10): Go's exact answer for the first bytes Go recognises, a closed
 * connection for anything else and for a client that sends too little; TLS clients are served as before.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import * as https from "node:https"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { generatePki, type GeneratedPki } from "../../simulator/apiserver/auth/Certificates.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { looksLikeHttp } from "../../simulator/apiserver/http/PlainHttpOnTls.js"

let pki: GeneratedPki | undefined
const tlsServer = Effect.gen(function* () {
  pki ??= yield* Effect.orDie(generatePki(join(mkdtempSync(join(tmpdir(), "clustersim-plain-")), "pki"), "127.0.0.1"))
  return yield* serveHttp({ host: "127.0.0.1", port: 0, admin: false, tls: pki.tls, limits: { headersTimeoutMs: 300 } }).pipe(Effect.provide(ApiServer.layer()))
})

/** Writes `bytes` on a plain TCP connection; what comes back until the server closes it. */
const raw = (port: number, bytes: string) =>
  Effect.promise(
    () =>
      new Promise<{ readonly text: string; readonly closed: boolean; readonly ms: number }>((resolve) => {
        const started = performance.now()
        const socket = net.connect(port, "127.0.0.1", () => socket.write(bytes))
        let text = ""
        const giveUp = setTimeout(() => (socket.destroy(), resolve({ text, closed: false, ms: performance.now() - started })), 3_000)
        socket.on("data", (d) => (text += d.toString("latin1")))
        socket.on("error", () => {})
        socket.on("close", () => (clearTimeout(giveUp), resolve({ text, closed: true, ms: performance.now() - started })))
      })
  )

const healthz = (port: number) =>
  Effect.promise(
    () =>
      new Promise<{ readonly code: number; readonly body: string; readonly ms: number }>((resolve) => {
        const started = performance.now()
        https
          .get({ host: "127.0.0.1", port, path: "/healthz", ca: pki!.tls.clientCa, agent: false }, (res) => {
            let body = ""
            res.on("data", (d) => (body += d))
            res.on("end", () => resolve({ code: res.statusCode ?? 0, body, ms: performance.now() - started }))
          })
          .on("error", (e) => resolve({ code: 0, body: e.message, ms: performance.now() - started }))
      })
  )

describe("plain HTTP on the HTTPS port", () => {
  it("Go's first-bytes test: GET /, HEAD, POST, PUT /, OPTIO", () => {
    expect(["GET /healthz", "HEAD / H", "POST /api", "PUT /api/v1", "OPTIONS *"].map((s) => looksLikeHttp(Buffer.from(s)))).toEqual([true, true, true, true, true])
    expect(["DELETE /x", "PATCH /x", "GET x", "\x16\x03\x01\x02\x00", "CONNECT x"].map((s) => looksLikeHttp(Buffer.from(s)))).toEqual([false, false, false, false, false])
  })

  it.live("a plain GET gets Go's 400 answer, byte for byte, and the connection closed; TLS clients are served after it", () =>
    Effect.gen(function* () {
      const { port } = yield* tlsServer
      const plain = yield* raw(port, "GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n\r\n")
      expect(plain).toMatchObject({ text: "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n", closed: true })
      const options = yield* raw(port, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
      expect(options.text).toBe("HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n")
      const healthy = yield* healthz(port)
      expect([healthy.code, healthy.body]).toEqual([200, "ok"])
      expect(healthy.ms).toBeLessThan(100)
    }).pipe(Effect.scoped))

  it.live("other first bytes are closed without an answer, as Go closes them; fewer than five bytes are closed at the handshake timeout", () =>
    Effect.gen(function* () {
      const { port } = yield* tlsServer
      const del = yield* raw(port, "DELETE /api/v1/namespaces/x HTTP/1.1\r\nHost: x\r\n\r\n")
      expect(del).toMatchObject({ text: "", closed: true })
      const short = yield* raw(port, "GE")
      expect(short).toMatchObject({ text: "", closed: true })
      expect(short.ms).toBeGreaterThanOrEqual(250)
      expect(short.ms).toBeLessThan(2_000)
      const healthy = yield* healthz(port)
      expect([healthy.code, healthy.body]).toEqual([200, "ok"])
      expect(healthy.ms).toBeLessThan(100)
    }).pipe(Effect.scoped))
})
