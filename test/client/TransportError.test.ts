/**
 * A request without an answer is the transport's error, saying what happened and where; a 503 is only ever one a
 * server sent (src/client/TransportError.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { ConfigMaps } from "../../src/api/Resources.js"
import { makeHttpClient } from "../../src/client/HttpTransport.js"
import { failureKey, hasStatusCode, transportFailure } from "../../src/client/TransportError.js"
import { isConnectionFailure } from "../../src/loadgen/ConnectionFailure.js"
import { answeringServer, closedPort, droppingServer } from "../support/unreachable.js"

/** The HTTP transport itself: its type has the measuring capability. */
const clientOf = (baseUrl: string) => makeHttpClient({ baseUrl })

const systemError = (message: string, code: string) => Object.assign(new Error(message), { code })

describe("TransportError", () => {
  it("names what happened in Go's words where it has them, and the target's origin, never the path", () => {
    const at = "http://127.0.0.1:7999/api/v1/namespaces/default/configmaps/x?resourceVersion=0"
    expect(transportFailure(at, systemError("connect ECONNREFUSED 127.0.0.1:7999", "ECONNREFUSED")).message).toBe("connection refused: http://127.0.0.1:7999")
    expect(transportFailure(at, systemError("read ECONNRESET", "ECONNRESET")).message).toBe("connection reset (ECONNRESET): http://127.0.0.1:7999")
    expect(transportFailure("https://api.example.invalid:6443", systemError("getaddrinfo ENOTFOUND api.example.invalid", "ENOTFOUND")).message).toBe(
      "no such host (ENOTFOUND): https://api.example.invalid:6443"
    )
    expect(transportFailure("https://10.0.0.1:6443", systemError("self-signed certificate in certificate chain", "SELF_SIGNED_CERT_IN_CHAIN")).message).toBe(
      "TLS: self-signed certificate in certificate chain (SELF_SIGNED_CERT_IN_CHAIN): https://10.0.0.1:6443"
    )
    // a URL that does not parse never left the client: reason InvalidUrl, the text as given
    const invalid = transportFailure("http://127.0.0.1:99999/version", Object.assign(new TypeError("Invalid URL"), { code: "ERR_INVALID_URL" }))
    expect(invalid).toMatchObject({ reason: "InvalidUrl", errorCode: "ERR_INVALID_URL" })
    expect(invalid.message).toBe("invalid URL: http://127.0.0.1:99999/version")
    // Node's happy-eyeballs connect throws an AggregateError of each address tried: the first one's code
    const both = new AggregateError([systemError("connect ECONNREFUSED ::1:7999", "ECONNREFUSED"), systemError("connect ECONNREFUSED 127.0.0.1:7999", "ECONNREFUSED")], "")
    expect(transportFailure("http://localhost:7999", both)).toMatchObject({ _tag: "TransportError", reason: "Transport", errorCode: "ECONNREFUSED", description: "connection refused" })
  })

  it.scopedLive("a closed port: every verb fails with `connection refused: URL`, no Status, counted as a connection failure", () =>
    Effect.gen(function* () {
      const url = `http://127.0.0.1:${yield* Effect.promise(closedPort)}`
      const api = yield* clientOf(url)
      const got = yield* Effect.flip(api.get(ConfigMaps, "x", { namespace: "default" }))
      expect(got).toMatchObject({ _tag: "TransportError", reason: "Transport", errorCode: "ECONNREFUSED", url })
      expect(got.message).toBe(`connection refused: ${url}`)
      expect(hasStatusCode(got, 503)).toBe(false)
      expect(isConnectionFailure(got)).toBe(true)
      expect(failureKey(got)).toBe("connection refused")
      const measured = yield* Effect.flip(api.measure("GET", ConfigMaps, "x", { namespace: "default" }))
      expect(measured.message).toBe(`connection refused: ${url}`)
      const watched = yield* Effect.flip(Stream.runDrain(api.watch(ConfigMaps, { namespace: "default" })))
      expect(watched).toMatchObject({ _tag: "TransportError", errorCode: "ECONNREFUSED" })
    }))

  it.scopedLive("a server that closes or resets the connection: the transport's error, not a 503", () =>
    Effect.gen(function* () {
      const closing = yield* droppingServer((socket) => socket.destroy())
      const closed = yield* Effect.flip((yield* clientOf(closing.url)).list(ConfigMaps, { namespace: "default" }))
      expect(closed).toMatchObject({ _tag: "TransportError", errorCode: "UND_ERR_SOCKET" })
      expect(closed.message).toBe(`connection closed (other side closed): ${closing.url}`)
      const resetting = yield* droppingServer((socket) => socket.resetAndDestroy())
      const reset = yield* Effect.flip((yield* clientOf(resetting.url)).list(ConfigMaps, { namespace: "default" }))
      expect(reset.message).toBe(`connection reset (ECONNRESET): ${resetting.url}`)
      expect(isConnectionFailure(reset)).toBe(true)
    }))

  it.scopedLive("a 503 the server sent stays the server's answer: an ApiError with its Status, not a connection failure", () =>
    Effect.gen(function* () {
      const status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "the server is currently unable to handle the request", reason: "ServiceUnavailable", code: 503 }
      const { url } = yield* answeringServer(() => ({ status: 503, body: status }))
      const got = yield* Effect.flip((yield* clientOf(url)).get(ConfigMaps, "x", { namespace: "default" }))
      expect(got._tag).toBe("ApiError")
      expect(hasStatusCode(got, 503)).toBe(true)
      expect(got._tag === "ApiError" && got.status).toEqual(status)
      expect(isConnectionFailure(got)).toBe(false)
      expect(failureKey(got)).toBe("503")
    }))
})
