/**
 * serve's live cluster in `/metrics`: an in-process component's calls (a node agent's, through its identity client,
 * the effectful verbs and the immediate view) count in the same series as the same requests over HTTP, with the same
 * labels; its watches are long-running while open and their events counted.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Scope } from "effect"
import type { KObject } from "../../../src/api/Object.js"
import { Deployments, Leases } from "../../../src/api/Resources.js"
import { ApiServer } from "../../../simulator/apiserver/ApiServer.js"
import { nodeAgentCredentials } from "../../../simulator/apiserver/auth/ComponentIdentities.js"
import { nodeUser } from "../../../simulator/apiserver/auth/UserInfo.js"
import { serveHttp } from "../../../simulator/apiserver/HttpServer.js"
import { inProcessClient } from "../../../simulator/apiserver/InProcessClient.js"
import { observedClient } from "../../../simulator/apiserver/ObservedClient.js"
import { send } from "../../support/wire.js"

const samples = (text: string, name: string, labels: Record<string, string> = {}): ReadonlyArray<string> =>
  text
    .split("\n")
    .filter((l) => l.startsWith(`${name}{`))
    .filter((l) => Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
const value = (line: string | undefined) => Number(line?.slice(line.lastIndexOf(" ") + 1))
const admin = { headers: { authorization: "Bearer tok-admin" } }
const tokens = new Map([["tok-admin", { name: "admin", uid: "1", groups: ["system:masters"] }]])
const lease = (name: string) => ({ apiVersion: "coordination.platform/v1", kind: "Lease", metadata: { name, namespace: "platform-node-lease" }, spec: { holderIdentity: name } })

describe("in-process calls in /metrics", () => {
  it.scoped("a node agent's calls count as the same requests over HTTP; its watch is long-running, then counted", () =>
    Effect.gen(function* () {
      const server = yield* ApiServer
      const running = yield* serveHttp({ host: "127.0.0.1", port: 0, admin: false })
      const agent = observedClient(running.inProcessCalls!(nodeUser("n1")), inProcessClient(server, nodeAgentCredentials("n1")))
      const ns = { namespace: "platform-node-lease" }
      expect((yield* agent.create(Leases, lease("n1"), ns)).code).toBe(201)
      // the immediate view, as the node-agent shards call it
      const view = agent.at(Date.now())!
      const got = view.get(Leases, "n1", ns) as Either.Either<KObject, unknown>
      if (!(Either.isEither(got) && Either.isRight(got))) throw new Error("the lease was not read")
      const missing = view.get(Leases, "n2", ns)
      expect(Either.isEither(missing) && Either.isLeft(missing)).toBe(true)
      yield* agent.update(Leases, { ...got.right, spec: { holderIdentity: "n1", leaseDurationSeconds: 40 } }, ns)
      // an apply is APPLY; a node may not read Deployments: its identity client's 403 (authorization, before any
      // handler) is not counted, as over HTTP
      yield* agent.patch(Leases, "n1", "apply", lease("n1"), { ...ns, fieldManager: "agent", force: true })
      const forbidden = yield* Effect.either(agent.get(Deployments, "d", { namespace: "default" }))
      expect(Either.isLeft(forbidden) && forbidden.left._tag === "ApiError" && forbidden.left.code).toBe(403)
      // a controller's watch (in system:masters): open, an event, closed
      const controllerUser = { name: "controller", uid: "", groups: ["system:masters", "system:authenticated"] }
      const controller = observedClient(running.inProcessCalls!(controllerUser), inProcessClient(server, { clientCertificate: { commonName: "controller", organizations: ["system:masters"], verified: true } }))
      const scope = yield* Scope.make()
      const pull = yield* Scope.extend(controller.pullWatch(Leases, { ...ns, resourceVersion: "0" }), scope)
      const events = yield* pull
      expect(Chunk.size(events)).toBe(1)
      const open = (yield* send(running.url, "GET", "/metrics", admin)).text
      const leases = { group: "coordination.platform", version: "v1", resource: "leases", component: "apiserver" }
      expect(value(samples(open, "apiserver_longrunning_requests", { ...leases, verb: "WATCH", scope: "namespace" })[0])).toBe(1)
      expect(value(samples(open, "apiserver_watch_events_total", { group: "coordination.platform", kind: "Lease" })[0])).toBe(1)
      expect(value(samples(open, "apiserver_watch_events_sizes_count", { kind: "Lease" })[0])).toBe(1)
      yield* Scope.close(scope, Effect.void as never)
      // the same request over HTTP counts in the same series
      expect((yield* send(running.url, "GET", "/apis/coordination.platform/v1/namespaces/platform-node-lease/leases/n1", admin)).code).toBe(200)
      const text = (yield* send(running.url, "GET", "/metrics", admin)).text
      const total = (labels: Record<string, string>) => samples(text, "apiserver_request_total", { ...leases, dry_run: "", ...labels }).map(value)
      expect(total({ verb: "POST", scope: "resource", code: "201" })).toEqual([1])
      expect(total({ verb: "GET", scope: "resource", code: "200" })).toEqual([2])
      expect(total({ verb: "GET", scope: "resource", code: "404" })).toEqual([1])
      expect(total({ verb: "PUT", scope: "resource", code: "200" })).toEqual([1])
      expect(total({ verb: "APPLY", scope: "resource", code: "200" })).toEqual([1])
      expect(total({ verb: "WATCH", scope: "namespace", code: "200" })).toEqual([1])
      expect(samples(text, "apiserver_request_total", { resource: "deployments" })).toEqual([])
      expect(value(samples(text, "apiserver_longrunning_requests", { ...leases, verb: "WATCH" })[0])).toBe(0)
      // a GET's response size: the lease's JSON, in the first bucket (1000 bytes)
      expect(value(samples(text, "apiserver_response_sizes_count", { resource: "leases", verb: "GET" })[0])).toBe(3)
    }).pipe(Effect.provide(ApiServer.layer({ authorizationMode: "RBAC", authentication: { anonymous: false, tokens } }))))
})
