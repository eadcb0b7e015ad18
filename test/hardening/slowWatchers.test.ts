/**
 * A watch whose client stops reading is closed once it falls behind (docs/limits.md), as upstream's cacher
 * ends a watcher it cannot feed: the stream ends with no ERROR event, and the server's memory stays bounded.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as net from "node:net"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { send } from "../support/wire.js"

describe("slow watchers over HTTP", () => {
  it.live("a client that never reads is cut off past the byte bound; the stream ends cleanly, fewer events than written", () =>
    Effect.gen(function* () {
      const { port, url } = yield* serveHttp({ host: "127.0.0.1", port: 0, admin: false, limits: { watchBufferBytes: 256 * 1024 } }).pipe(
        Effect.provide(ApiServer.layer({ watchBufferSize: 1000 }))
      )
      const socket = net.connect(port, "127.0.0.1")
      yield* Effect.addFinalizer(() => Effect.sync(() => socket.destroy()))
      yield* Effect.promise(() => new Promise((r) => socket.on("connect", r)))
      socket.write("GET /api/v1/namespaces/default/configmaps?watch=1 HTTP/1.1\r\nHost: x\r\n\r\n")
      socket.pause()
      yield* Effect.sleep("100 millis")
      // 20 MiB of events, far more than the socket buffers of a client that reads nothing and the 256 KiB bound.
      const written = 40
      for (let i = 0; i < written; i++) {
        const body = JSON.stringify({ metadata: { name: `big-${i}` }, data: { pad: "x".repeat(512 * 1024) } })
        expect((yield* send(url, "POST", "/api/v1/namespaces/default/configmaps", { body, headers: { "content-type": "application/json" } })).code).toBe(201)
      }
      const text = yield* Effect.promise(
        () =>
          new Promise<string>((resolve) => {
            let out = ""
            socket.on("data", (d: Buffer) => {
              out += d.toString("latin1")
              // The last chunk of the body (the headers end in `\r\n\r\n` too).
              if (out.endsWith("\r\n0\r\n\r\n")) resolve(out)
            })
            socket.on("close", () => resolve(out))
            socket.resume()
          })
      )
      const events = text.split("\n").filter((line) => line.startsWith('{"type":'))
      expect(text.endsWith("\r\n0\r\n\r\n")).toBe(true)
      expect(events.length).toBeGreaterThan(0)
      expect(events.length).toBeLessThan(written)
      expect(events.some((e) => e.startsWith('{"type":"ERROR"'))).toBe(false)
    }).pipe(Effect.scoped), 60_000)
})
