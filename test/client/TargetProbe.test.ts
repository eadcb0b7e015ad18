/** The probe before a run's first phase (src/client/TargetProbe.ts): reachable or not, at once. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { probeTarget } from "../../src/client/TargetProbe.js"
import { httpServer } from "../support/transports.js"
import { answeringServer, closedPort, droppingServer } from "../support/unreachable.js"

describe("probeTarget", () => {
  it.scopedLive("a simulated server: reachable, with its version", () =>
    Effect.gen(function* () {
      const url = yield* httpServer()
      const reached = yield* probeTarget({ baseUrl: url })
      expect(reached.version).toMatch(/^v1\.\d+\.\d+/)
    }))

  it.live("a closed port: the transport's error, `connection refused: URL`", () =>
    Effect.gen(function* () {
      const url = `http://127.0.0.1:${yield* Effect.promise(closedPort)}`
      const error = yield* Effect.flip(probeTarget({ baseUrl: url }))
      expect(error).toMatchObject({ _tag: "TransportError", reason: "Transport", errorCode: "ECONNREFUSED", url })
      expect(error.message).toBe(`connection refused: ${url}`)
    }))

  it.live("a URL that does not parse: InvalidUrl, nothing sent", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(probeTarget({ baseUrl: "http://127.0.0.1:99999" }))
      expect(error).toMatchObject({ _tag: "TransportError", reason: "InvalidUrl" })
      expect(error.message).toBe("invalid URL: http://127.0.0.1:99999")
    }))

  it.scopedLive("a listener that drops the connection, and TLS spoken to a plain listener: the transport's errors", () =>
    Effect.gen(function* () {
      const dropping = yield* droppingServer((socket) => socket.destroy())
      expect((yield* Effect.flip(probeTarget({ baseUrl: dropping.url }))).message).toBe(`connection closed (other side closed): ${dropping.url}`)
      const https = dropping.url.replace("http:", "https:")
      const tls = yield* Effect.flip(probeTarget({ baseUrl: https, tls: { insecureSkipVerify: true } }))
      expect(tls._tag).toBe("TransportError")
      expect(tls.message).toBe(`TLS handshake failed: Client network socket disconnected before secure TLS connection was established: ${https}`)
    }))

  it.scopedLive("any answer is reachable — 401 from /version and /api too (the run's credentials decide); 404 on both is no API server", () =>
    Effect.gen(function* () {
      const unauthorized = yield* answeringServer(() => ({ status: 401, body: { kind: "Status", code: 401, reason: "Unauthorized" } }))
      expect(yield* probeTarget({ baseUrl: unauthorized.url })).toEqual({})
      const paths: Array<string> = []
      const missing = yield* answeringServer((req) => (paths.push(req.url ?? ""), { status: 404, body: "404 page not found" }))
      const error = yield* Effect.flip(probeTarget({ baseUrl: missing.url }))
      expect(error._tag).toBe("NotAnApiServer")
      expect(error.message).toBe(`${missing.url} is not a Kubernetes API server: GET /version and GET /api answered 404`)
      expect(paths).toEqual(["/version", "/api"])
    }))
})
