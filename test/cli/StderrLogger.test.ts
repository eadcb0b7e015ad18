/** `serve` logs a request's defect on stderr, never on stdout, which its caller reads (issue 36, item 10). */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { ApiServer, type ApiServerImpl } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { layerStderrLogger } from "../../app/cli/StderrLogger.js"
import { send } from "../support/wire.js"

/** The real server, except that reading the config map `boom` throws, as a bug would. */
const faultyServer = Layer.map(ApiServer.layer(), (context) => {
  const real = Context.get(context, ApiServer)
  const getNow = (...args: Parameters<ApiServerImpl["getNow"]>) => {
    if (args[1] === "boom") throw new RangeError("a bug")
    return real.getNow(...args)
  }
  return Context.add(context, ApiServer, Object.assign(Object.create(real) as ApiServerImpl, { getNow }))
})

afterEach(() => void vi.restoreAllMocks())

describe("serve's log", () => {
  it.live("a request's defect is logged on stderr with its request id; nothing goes to stdout", () =>
    Effect.gen(function* () {
      const out: Array<string> = []
      const err: Array<string> = []
      vi.spyOn(console, "log").mockImplementation((...xs) => void out.push(xs.join(" ")))
      vi.spyOn(console, "error").mockImplementation((...xs) => void err.push(xs.join(" ")))
      const { url } = yield* serveHttp({ host: "127.0.0.1", port: 0, admin: false }).pipe(Effect.provide(Layer.merge(faultyServer, layerStderrLogger)))
      const reply = yield* send(url, "GET", "/api/v1/namespaces/default/configmaps/boom")
      expect(reply.code).toBe(500)
      yield* Effect.sleep(50)
      const id = reply.headers["audit-id"] as string
      expect(err.join("\n")).toContain(`level=ERROR`)
      expect(err.join("\n")).toContain(`request ${id} (GET /api/v1/namespaces/default/configmaps/boom) failed with a defect`)
      expect(out).toEqual([])
    }).pipe(Effect.scoped))
})
