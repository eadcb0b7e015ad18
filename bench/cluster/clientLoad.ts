/**
 * The clients of a capacity question, as one workload for the cluster runner (issue 20, `cluster-with-clients`):
 * a kubelet-style pod reflector per node (fieldSelector `spec.nodeName`), pod informers over all namespaces, a
 * paged LIST of all pods every `listEveryMs`, and GETs of random pods at `getsPerSecond`. Everything goes through
 * the simulation's `ApiClient` (the service-time model in front of the in-process server), in virtual time; the
 * per-node reflectors' requests booked as their node's (the cluster's `ServiceTime` model with the node's identity),
 * the rest as the simulation's own user.
 */
import { Effect, Option, Schedule } from "effect"
import { Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { startInformer } from "../../src/informer/Informer.js"
import { makeReflector } from "../../src/informer/Reflector.js"
import { nodeUser } from "../../simulator/apiserver/auth/UserInfo.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { AnsweredAt, hasTimedReads, modelledClient, ServiceTime } from "../../simulator/apiserver/ServiceTime.js"
import { untilMicros } from "../../simulator/apiserver/ModelledAnswers.js"
import type { ModelIdentity } from "../../simulator/apiserver/ModelRequests.js"
import * as SeededRandom from "../../simulator/kernel/SeededRandom.js"
import { everyTick, type Tick } from "./OpenLoop.js"
import type { ClientError } from "../../src/client/TransportError.js"

export interface ClientLoadOptions {
  /** Node names: one pod reflector each, as the kubelet's pod config source. */
  readonly nodes: ReadonlyArray<string>
  /** Pod informers over all namespaces, each with its own event handlers counted in `informerEvents`. */
  readonly informers: number
  /**
   * True: the informers are one client process's, sharing one list, watch and cache as client-go's
   * `SharedInformerFactory` gives every caller asking for pods (one informer, `informers` handler sets); false:
   * each is its own informer, as `informers` client processes would be (`docs/benchmarks.md` "With clients").
   */
  readonly sharedInformers: boolean
  readonly listEveryMs: number
  readonly listPageSize: number
  readonly getsPerSecond: number
  /** The pod a GET asks for, from a uniform number in [0, 1): namespace and name. */
  readonly podAt: (u: number) => readonly [string, string]
}

export interface ClientLoadCounters {
  nodeWatchEvents: number
  /** Events told to informer handlers, each handler set's counted. */
  informerEvents: number
  lists: number
  listedItems: number
  gets: number
  errors: number
  /** The failed requests by verb, status code and reason ("GET 404 NotFound"): which they are, not only how many. */
  failures: Record<string, number>
  /** Lists of the reflectors and informers, the first ones included. */
  syncs: number
}

/** A kubelet's identity as API Priority and Fairness classifies it (the node authorizer's user and group). */
const nodeIdentity = (node: string): ModelIdentity => {
  const user = nodeUser(node)
  return { user: user.name, groups: user.groups }
}

const countFailure = (counters: ClientLoadCounters, verb: string, error: ClientError): void => {
  counters.errors++
  const key = error._tag === "ApiError" ? `${verb} ${error.code} ${error.reason ?? ""}`.trimEnd() : `${verb} ${error.description}`
  counters.failures[key] = (counters.failures[key] ?? 0) + 1
}

export const clientLoad = (options: ClientLoadOptions, counters: ClientLoadCounters): Effect.Effect<void, never, ApiClient> =>
  Effect.scoped(
    Effect.gen(function* () {
      const random = SeededRandom.make(20).split("client-load")
      const nodeRandom = random.split("nodes")
      // with a cluster section the simulation offers its server and service-time model (simulator/cluster/ClusterRun.ts)
      const model = yield* Effect.serviceOption(ServiceTime)
      const server = yield* Effect.serviceOption(ApiServer)
      const clientAs = Option.isSome(model) && Option.isSome(server) ? Option.some((identity: ModelIdentity) => modelledClient(inProcessClient(server.value), model.value, identity)) : Option.none()
      for (const node of options.nodes) {
        const reflector = yield* makeReflector(
          { resource: Pods, fieldSelector: `spec.nodeName=${node}`, random: () => nodeRandom.next(), observer: { synced: () => Effect.sync(() => void counters.syncs++) } },
          {
            add: () => void counters.nodeWatchEvents++,
            update: () => void counters.nodeWatchEvents++,
            delete: () => void counters.nodeWatchEvents++,
            replace: () => {}
          }
        )
        // as the kubelet: `system:node:<name>` in `system:nodes`, a flow of its own (docs/benchmarks.md "With clients")
        const asNode = Option.map(clientAs, (as) => as(nodeIdentity(node)))
        yield* Effect.forkScoped(Option.isSome(asNode) ? Effect.provideService(reflector.run, ApiClient, asNode.value) : reflector.run)
      }
      const informerRandom = random.split("informers")
      const handlers = () => ({
        onAdd: () => void counters.informerEvents++,
        onUpdate: () => void counters.informerEvents++,
        onDelete: () => void counters.informerEvents++
      })
      const informerOptions = { resource: Pods, random: () => informerRandom.next(), observer: { synced: () => Effect.sync(() => void counters.syncs++) } }
      if (options.sharedInformers) yield* startInformer(informerOptions, Array.from({ length: options.informers }, handlers))
      else for (let i = 0; i < options.informers; i++) yield* startInformer(informerOptions, handlers())
      const client = yield* ApiClient
      const pagedList = Effect.gen(function* () {
        let token: string | undefined
        do {
          const page = yield* client.list(Pods, { limit: options.listPageSize, ...(token ? { continue: token } : {}) })
          counters.listedItems += page.items.length
          token = page.metadata.continue
        } while (token)
        counters.lists++
      }).pipe(Effect.catchAll((e) => Effect.sync(() => countFailure(counters, "LIST", e))))
      yield* Effect.forkScoped(Effect.repeat(pagedList, Schedule.spaced(options.listEveryMs)))
      const getRandom = random.split("gets")
      const counted = Effect.match({ onFailure: (e: ClientError) => countFailure(counters, "GET", e), onSuccess: () => void counters.gets++ })
      // open model: each GET starts on its own tick, whatever the previous one's latency; one answered at once is
      // counted at its end without a fiber (`ApfTimedClient.getAt`), as its fiber would have counted it then
      const timed = hasTimedReads(client) ? client : undefined
      const oneGet = (tick: Tick): Effect.Effect<void> | undefined => {
        const [namespace, name] = options.podAt(getRandom.next())
        if (timed === undefined) return counted(client.get(Pods, name, { namespace }))
        const now = tick.now
        const get = timed.getAt(Pods, name, { namespace }, now)
        if (!(get instanceof AnsweredAt)) return counted(get)
        const answer = get.answer
        const count = () => (answer._tag === "Right" ? void counters.gets++ : countFailure(counters, "GET", answer.left))
        const ms = untilMicros(now, get.end)
        if (ms > 0) tick.later(ms, count)
        else count()
        return undefined
      }
      yield* Effect.forkScoped(everyTick(1000 / options.getsPerSecond, oneGet))
      return yield* Effect.never
    })
  )
