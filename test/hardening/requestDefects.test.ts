/**
 * A defect inside one request (a bug, simulated here by an API server whose reads of one name throw) is a
 * 500 Status for that request only, with its request id in `Audit-Id` and in the log; the server goes on.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Logger } from "effect"
import { ApiServer, type ApiServerImpl } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { send } from "../support/wire.js"

/** The real server, except that reading the config map `boom` throws, as a bug would. */
const withFaultyReads = (real: ApiServerImpl): ApiServerImpl => {
  const boom = (name: string) => {
    if (name === "boom") throw new RangeError("Maximum call stack size exceeded")
  }
  return Object.assign(Object.create(real) as ApiServerImpl, {
    getNow: (...args: Parameters<ApiServerImpl["getNow"]>) => (boom(args[1]), real.getNow(...args)),
    get: (...args: Parameters<ApiServerImpl["get"]>) => (boom(args[1]), real.get(...args))
  })
}

const faultyServer = Layer.map(ApiServer.layer(), (context) => Context.add(context, ApiServer, withFaultyReads(Context.get(context, ApiServer))))

describe("defects inside a request", () => {
  it.scoped("answer 500 for that request alone, logged with the request id; the server goes on", () =>
    Effect.gen(function* () {
      const logs: string[] = []
      const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logs.push(String(Array.isArray(message) ? message[0] : message))))
      const { url } = yield* serveHttp({ host: "127.0.0.1", port: 0, admin: false }).pipe(Effect.provide(Layer.merge(faultyServer, logger)))
      for (const headers of [{} as Record<string, string>, { accept: "application/json;as=Table;v=v1;g=meta.k8s.io, application/json" }]) {
        // The fast path and the general path (any other Accept) both stay standing.
        const reply = yield* send(url, "GET", "/api/v1/namespaces/default/configmaps/boom", { headers })
        const requestId = reply.headers["audit-id"] as string
        expect(reply.code).toBe(500)
        expect(reply.json).toMatchObject({ kind: "Status", status: "Failure", code: 500, message: `Internal error occurred: request ${requestId} failed; see the server log` })
        expect(logs.some((line) => line.startsWith(`request ${requestId} (GET /api/v1/namespaces/default/configmaps/boom) failed with a defect`))).toBe(true)
      }
      expect((yield* send(url, "GET", "/api/v1/namespaces/default")).code).toBe(200)
      expect((yield* send(url, "GET", "/api/v1/namespaces/default/configmaps/other")).code).toBe(404)
    }))
})
