/**
 * The in-process `ApiClient`: direct calls into a simulated server of the same process, no wire. It lives with
 * the server it calls (the client package knows only the contract and the HTTP transport). Every request comes in
 * through the server's `Admission`, as an HTTP request does.
 *
 * Value semantics (docs/architecture.md "Value semantics"): the effectful verbs copy the bodies they are given, so a
 * caller may change or reuse a body after the call. Results are the stored objects' parts, not copies (a copy of
 * every list would cost the simulated cluster measurably): read-only, as client-go's informer cache is. The
 * immediate view (`at`) copies nothing either way — its callers, the node-agent shards, send back parts of what
 * they read on purpose. The tests run the in-process contract suites over a client that deep-freezes everything
 * crossing it (test/support/frozenClient.ts), so a hidden mutation on either side fails a test.
 */
import { Duration, Effect, Either, Layer, Stream } from "effect"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import type { InProcessClientService, WatchPulls } from "../../src/client/Capabilities.js"
import { ServerAdmin } from "../../src/client/ServerAdmin.js"
import { ApiServer, WaitFor, type ApiServerImpl } from "./ApiServer.js"
import type { Credentials } from "./auth/Authenticator.js"
import { identityClient } from "./auth/IdentityClient.js"
import { anonymousUser } from "./auth/UserInfo.js"
import type { ClientError } from "../../src/client/TransportError.js"
import type { StoredRead } from "./StoredRead.js"

/**
 * A deep copy of a JSON-shaped body (objects, arrays, primitives), as the wire would hand it over. Keys are added in
 * order to a fresh literal, so copies of like bodies share V8 hidden classes; an own `__proto__` key (JSON can make
 * one) is defined, not assigned through the prototype's setter.
 */
export const copyOf = (value: unknown): unknown => {
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) return value.map(copyOf)
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const v = copyOf((value as Record<string, unknown>)[key])
    if (key === "__proto__") Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true })
    else out[key] = v
  }
  return out
}

/**
 * The in-process client of one server (what `layer` provides). Without credentials it calls as the anonymous user
 * would (let through by an AlwaysAllow server); with them, as that identity (auth/IdentityClient.ts).
 */
export const inProcessClient = (server: ApiServerImpl, credentials?: Credentials): InProcessClientService => {
  if (credentials === undefined && server.access.allowsEverything) return directClient(server)
  // Identity clients share one direct client per server (thousands of node agents each have their own identity).
  let base = sharedDirect.get(server)
  if (base === undefined) sharedDirect.set(server, (base = directClient(server)))
  return identityClient(server.access, credentials ?? {}, base, (resource, body, caller) => server.review(resource, copyOf(body), caller))
}

const sharedDirect = new WeakMap<ApiServerImpl, InProcessClientService>()

/** The server a direct client (no identity of its own) calls: what a wrapper that reads its watches as chains opens them on. */
const directServers = new WeakMap<ApiClientService, ApiServerImpl>()

/** The server `client` calls directly, when it is a direct in-process client (`inProcessClient` without credentials). */
export const directServerOf = (client: ApiClientService): ApiServerImpl | undefined => directServers.get(client)

const directClient = (server: ApiServerImpl): InProcessClientService => {
  const effectful: ApiClientService & WatchPulls = {
    get: (resource, name, opts) => server.get(resource, name, opts),
    list: (resource, opts) => server.list(resource, opts),
    create: (resource, obj, opts) => (resource.virtual ? server.review(resource, copyOf(obj), anonymousUser) : server.create(resource, { value: copyOf(obj) }, opts)),
    update: (resource, obj, opts) => server.update(resource, obj.metadata.name ?? "", { value: copyOf(obj) }, opts),
    patch: (resource, name, patchType, patch, opts) => server.patch(resource, name, patchType, { value: copyOf(patch) }, opts),
    delete: (resource, name, opts) => server.delete(resource, name, opts),
    deleteCollection: (resource, opts) => server.deleteCollection(resource, opts),
    watch: (resource, opts) => Stream.unwrapScoped(server.watch(resource, opts)),
    pullWatch: (resource, opts) => server.pullWatch(resource, opts)
  }
  // One immediate client per instant: callers ask for it per request, and most requests share an instant.
  let instant = Number.NaN
  let immediate = effectful
  const client: InProcessClientService = {
    ...effectful,
    at: (now: number) => {
      if (!server.admission.enterNow(now)) return undefined
      if (now !== instant) {
        instant = now
        immediate = immediateClient(server, effectful, now)
      }
      return immediate
    }
  }
  directServers.set(client, server)
  return client
}

/** Answers at `now` as the server's effectful verbs would, without their effect; what must wait stays an effect. */
const immediateClient = (server: ApiServerImpl, effectful: ApiClientService & WatchPulls, now: number): ApiClientService & WatchPulls & StoredRead => {
  const answered = <A>(answer: Either.Either<A, ClientError> | WaitFor, wait: () => Effect.Effect<A, ClientError>): Effect.Effect<A, ClientError> =>
    answer instanceof WaitFor ? wait() : answer
  return {
    get: (resource, name, opts) => answered(server.getNow(resource, name, opts), () => effectful.get(resource, name, opts)),
    list: (resource, opts) => answered(server.listNow(resource, opts), () => effectful.list(resource, opts)),
    create: (resource, obj, opts = {}) => (resource.virtual ? effectful.create(resource, obj, opts) : server.createAt(resource, { value: obj }, opts, now)),
    update: (resource, obj, opts = {}) => server.updateAt(resource, obj.metadata.name ?? "", { value: obj }, opts, now),
    patch: (resource, name, patchType, patch, opts = {}) => server.patchAt(resource, name, patchType, { value: patch }, opts, now),
    delete: (resource, name, opts = {}) => server.deleteAt(resource, name, opts, now),
    deleteCollection: effectful.deleteCollection,
    watch: effectful.watch,
    pullWatch: effectful.pullWatch,
    storedNow: (resource, namespace, name) => server.storedNow(resource, namespace, name)
  }
}

/** Direct calls into the simulated server of the context. */
export const layer: Layer.Layer<ApiClient, never, ApiServer> = Layer.effect(ApiClient, Effect.map(ApiServer, (server) => inProcessClient(server)))

/** Direct calls as the identity `credentials` prove (a token, or a client certificate the transport vouches for). */
export const layerAs = (credentials: Credentials): Layer.Layer<ApiClient, never, ApiServer> =>
  Layer.effect(ApiClient, Effect.map(ApiServer, (server) => inProcessClient(server, credentials)))

/** The simulator's failure hooks, called directly. */
export const layerAdmin: Layer.Layer<ServerAdmin, never, ApiServer> = Layer.effect(
  ServerAdmin,
  Effect.map(ApiServer, (server) => ({
    compact: server.compact(),
    dropWatches: server.dropWatches(),
    expireTokens: (dropWatches) => server.expireTokens(dropWatches),
    pause: (duration) => server.pause(Duration.toMillis(duration))
  }))
)
