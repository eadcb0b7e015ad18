/**
 * The `expire-tokens` step in virtual time: a writer and two informers whose client authenticates with an exec
 * plugin (modelled: 50 ms per run) against a server that accepts only the tokens the plugin issued. At 5.05 s the
 * client's token is swapped for an expired one (side: client) and the watches are dropped, so the informers must
 * list and watch again. Recovery follows client-go: the first 401 runs the plugin again; the writer loses the
 * refused request, the informers back off (800 ms and jitter) and relist.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Effect, Either, Layer, Stream } from "effect"
import * as Simulation from "../../simulator/kernel/Simulation.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import * as InProcessClient from "../../simulator/apiserver/InProcessClient.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { credentialedClient } from "../../simulator/apiserver/auth/CredentialedClient.js"
import { Namespaces, ServiceAccounts } from "../../src/api/Resources.js"
import { tokenRequestRunner } from "../../src/client/auth/TokenRequestPlugin.js"
import * as Status from "../../src/api/Status.js"
import { ApiError } from "../../src/api/Status.js"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import { withCredential, type CredentialSource } from "../../src/client/auth/Credential.js"
import { execCredentialSource } from "../../src/client/auth/ExecAuthenticator.js"
import { ServerAdmin } from "../../src/client/ServerAdmin.js"
import { LatencyRecorder } from "../../src/loadgen/LatencyRecorder.js"
import { parseScenario } from "../../app/scenario/load.js"
import { checkTargetSupports, makeRunState, runScenario } from "../../app/scenario/Run.js"
import type { ClientError } from "../../src/client/TransportError.js"

const unauthorized = () => new ApiError({ status: Status.makeStatus({ code: 401, reason: "Unauthorized", message: "Unauthorized" }) })

/** `inner` behind a bearer-token check under `source`, the HTTP transport's credential handling without the wire. */
const authenticated = (inner: ApiClientService, source: CredentialSource, valid: (token: string | undefined) => boolean): ApiClientService => {
  const guard = <A>(call: () => Effect.Effect<A, ClientError>) => withCredential(source, (c) => (valid(c.token) ? call() : Effect.fail(unauthorized())))
  return {
    get: (...a) => guard(() => inner.get(...a)),
    list: (...a) => guard(() => inner.list(...a)),
    create: (...a) => guard(() => inner.create(...a)),
    update: (...a) => guard(() => inner.update(...a)),
    patch: (...a) => guard(() => inner.patch(...a)),
    delete: (...a) => guard(() => inner.delete(...a)),
    deleteCollection: (...a) => guard(() => inner.deleteCollection(...a)),
    watch: (...a) => Stream.unwrap(guard(() => Effect.succeed(inner.watch(...a))))
  }
}

const scenarioText = (side: "client" | "server", extra = "") => `
apiVersion: clustersim/v1
kind: Scenario
metadata: { name: token-rotation }
setup:
  namespaces: [rot]
  objects: [{ name: cms, resource: configmaps, namespace: rot, count: 5, template: { data: { k: v } } }]
phases:
  - name: rotate
    duration: 10s
    actions:
      - { type: constant-arrival-rate, name: writer, rate: 10, request: { verb: patch, objects: cms } }
      - { type: informers, name: informers, resource: configmaps, namespace: rot, count: 2 }
      - { type: expire-tokens, name: expire, at: 5050ms, side: ${side}, dropWatches: true }
${extra}`

const runInVirtualTime = (text: string, pluginMs: number, withCredentials = true) => {
  const loaded = parseScenario(text, "token-rotation.yaml")
  if (Either.isLeft(loaded)) throw new Error(loaded.left.message)
  const scenario = loaded.right.scenario
  let runs = 0
  const source = execCredentialSource({
    config: { command: "modelled", args: [], env: [], apiVersion: "client.authentication.k8s.io/v1", interactiveMode: "Never", provideClusterInfo: false },
    run: () =>
      Effect.sleep(pluginMs).pipe(
        Effect.as(JSON.stringify({ kind: "ExecCredential", apiVersion: "client.authentication.k8s.io/v1", status: { token: `tok-${++runs}` } }))
      ),
    isTerminal: () => false,
    environ: () => ({})
  })
  const sim = Simulation.make({ seed: 7 })
  const server = ApiServer.layer({ seed: 7 })
  const client = Layer.effect(
    ApiClient,
    Effect.map(ApiClient, (inner) => authenticated(inner, source, (t) => t !== undefined && t.startsWith("tok-")))
  ).pipe(Layer.provide(InProcessClient.layer))
  const exit = sim.run(
    Effect.scoped(
      Effect.gen(function* () {
        const admin = yield* ServerAdmin
        const recorder = yield* LatencyRecorder.make()
        const state = makeRunState(0)
        yield* runScenario(scenario, { seed: 7, admin, state, ...(withCredentials ? { credentials: source } : {}) }).pipe(Effect.provideService(LatencyRecorder, recorder))
        return { state, series: yield* recorder.snapshot }
      })
    ).pipe(Effect.provide(Layer.mergeAll(client, InProcessClient.layerAdmin).pipe(Layer.provide(server))))
  )
  if (exit?._tag !== "Success") throw new Error(`run failed: ${exit ? Cause.pretty(exit.cause) : "did not finish"}`)
  return { ...exit.value, runs: () => runs }
}

describe("expire-tokens (virtual time)", () => {
  it("side client: the writer loses one request and recovers 150 ms after the expiry; the informers relist after their backoff", () => {
    const { state, series, runs } = runInVirtualTime(scenarioText("client"), 50)
    const byName = Object.fromEntries(state.actions.map((a) => [a.action, a]))
    expect(byName.expire?.counts).toEqual({ credentialsExpired: 1, droppedWatches: 2 })
    // 5.1 s: refused (the plugin runs again, 5.1–5.15 s); 5.2 s: the new token
    expect(byName.writer?.tokens).toEqual({ unauthorized: 1, firstUnauthorizedMs: 50, recoveredMs: 150, lost: 1 })
    // both watches reopened at the expiry with the stale token; their 401 is answered once the plugin ran (50 ms)
    expect(byName.informers?.tokens).toMatchObject({ unauthorized: 2, firstUnauthorizedMs: 50, lost: 0 })
    // then the reflector's backoff, 800 ms × (1 + jitter), before the relist with the new token succeeds
    expect(byName.informers?.tokens?.recoveredMs).toBeCloseTo(1318.364681, 5)
    expect(byName.informers?.informers).toMatchObject({ relists: 2, triggers: { "watch-error": 2 } })
    // the same figures as samples (the histograms hold microseconds), for thresholds
    const recovery = series.filter((x) => x.key.metric === "token_recovery").map((x) => [x.key.name, x.count, x.errors, Math.round(x.latency.maxValue / 1000)])
    expect(recovery.sort()).toEqual([["informers", 1, 0, 1318], ["writer", 1, 0, 150]])
    expect(byName.informers?.informers?.synced).toBe(2)
    // once at the start, once after the first 401: the second informer's 401 came with the same answer
    expect(runs()).toBe(2)
  })
})

describe("expire-tokens side server (virtual time)", () => {
  it("the server's issued tokens expire; the exec plugin (a TokenRequest) runs again on the first 401", () => {
    const loaded = parseScenario(scenarioText("server"), "token-rotation.yaml")
    if (Either.isLeft(loaded)) throw new Error(loaded.left.message)
    const sim = Simulation.make({ seed: 7 })
    const exit = sim.run(
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* ApiServer
          const anonymous = inProcessClient(server)
          yield* anonymous.create(Namespaces, { metadata: { name: "rot" } })
          yield* anonymous.create(ServiceAccounts, { metadata: { name: "loadgen" } }, { namespace: "rot" })
          let runs = 0
          const plugin = tokenRequestRunner({ api: anonymous, serviceAccounts: ServiceAccounts, namespace: "rot", serviceAccount: "loadgen", expirationSeconds: 3600 })
          const source = execCredentialSource({
            config: { command: "kubectl-create-token", args: [], env: [], apiVersion: "client.authentication.k8s.io/v1", interactiveMode: "Never", provideClusterInfo: false },
            run: (i) => Effect.zipRight(Effect.sync(() => runs++), Effect.zipRight(Effect.sleep(50), plugin(i))),
            isTerminal: () => false,
            environ: () => ({})
          })
          const recorder = yield* LatencyRecorder.make()
          const state = makeRunState(0)
          const admin = yield* ServerAdmin
          yield* runScenario(loaded.right.scenario, { seed: 7, admin, state, credentials: source }).pipe(
            Effect.provideService(LatencyRecorder, recorder),
            Effect.provideService(ApiClient, credentialedClient(server, source))
          )
          return { state, runs }
        })
      ).pipe(Effect.provide(Layer.merge(InProcessClient.layerAdmin, Layer.effectContext(Effect.map(ApiServer, (s) => Context.make(ApiServer, s)))).pipe(Layer.provideMerge(ApiServer.layer({ seed: 7 })))))
    )
    if (exit?._tag !== "Success") throw new Error(`run failed: ${exit ? Cause.pretty(exit.cause) : "did not finish"}`)
    const { state, runs } = exit.value
    const byName = Object.fromEntries(state.actions.map((a) => [a.action, a]))
    // one token issued at the start, valid until the expiry; a second after the first 401
    expect(byName.expire?.counts).toEqual({ expiredTokens: 1, droppedWatches: 2 })
    expect(runs).toBe(2)
    expect(byName.writer?.tokens).toEqual({ unauthorized: 1, firstUnauthorizedMs: 50, recoveredMs: 150, lost: 1 })
    expect(byName.informers?.tokens).toMatchObject({ unauthorized: 2, firstUnauthorizedMs: 50, lost: 0 })
    expect(state.progress.errorMessages.get("rotate-writer: 401 Unauthorized: Unauthorized")).toBe(1)
  })
})

describe("expire-tokens refusals", () => {
  it("side client without a credential source: the run says why; side server on a target without admin hooks is refused before it runs", () => {
    const noCredentials = runInVirtualTime(scenarioText("client"), 50, false).state
    expect([...noCredentials.progress.errorMessages.keys()]).toContain(
      "expire: side: client needs a client with credentials (--token, or a kubeconfig user with a token, tokenFile or exec plugin)"
    )
    const server = parseScenario(scenarioText("server"), "s.yaml")
    if (Either.isLeft(server)) throw new Error(server.left.message)
    const refused = checkTargetSupports(server.right.scenario, false)
    expect(Either.isLeft(refused) && refused.left.message).toBe(
      "these failure steps need the simulated server's admin hooks (target embedded, in-process, or the URL of a `clustersim serve --admin`; " +
        "this target has no /clustersim/ admin endpoints): phases[0].actions[2] (expire-tokens side: server)"
    )
  })
})
