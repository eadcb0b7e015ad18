/**
 * A scripted API for reflector tests in virtual time (the kernel's Simulation): each LIST and each watch takes
 * the next answer from its script, and every request is logged with the virtual time it was made at.
 */
import { Clock, Effect, type Scope, Stream } from "effect"
import type { KList, KObject, WatchEvent } from "../../src/api/Object.js"
import type { ListOptions, WatchOptions } from "../../src/api/Requests.js"
import type { ApiError, Status } from "../../src/api/Status.js"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import * as Simulation from "../../simulator/kernel/Simulation.js"

export type ListAnswer = (options: ListOptions) => Effect.Effect<KList, ApiError>
export type WatchAnswer = (options: WatchOptions) => Stream.Stream<WatchEvent, ApiError>

export interface Script {
  readonly lists: Array<ListAnswer>
  readonly watches: Array<WatchAnswer>
}

export interface Logged<O> {
  readonly at: number
  readonly options: O
}

export interface Log {
  readonly lists: Array<Logged<ListOptions>>
  readonly watches: Array<Logged<WatchOptions>>
}

/** A client answering from `script`; a watch past the script stays open, a LIST past it is a test bug. */
export const scriptedClient = (script: Script, log: Log): ApiClientService =>
  ({
    list: (_resource, options = {}) =>
      Effect.flatMap(Clock.currentTimeMillis, (at) => {
        log.lists.push({ at, options })
        const answer = script.lists.shift()
        return answer ? answer(options) : Effect.dieMessage(`unscripted LIST ${JSON.stringify(options)}`)
      }),
    watch: (_resource, options = {}) =>
      Stream.unwrap(
        Effect.map(Clock.currentTimeMillis, (at) => {
          log.watches.push({ at, options })
          const answer = script.watches.shift()
          return answer ? answer(options) : Stream.never
        })
      )
  }) as ApiClientService

export const newLog = (): Log => ({ lists: [], watches: [] })

export const obj = (name: string, rv: string, namespace = "default"): KObject => ({ metadata: { name, namespace, resourceVersion: rv } })

export const listOf = (rv: string, items: ReadonlyArray<KObject> = [], continueToken?: string): KList => ({
  kind: "ConfigMapList",
  apiVersion: "v1",
  metadata: { resourceVersion: rv, ...(continueToken ? { continue: continueToken } : {}) },
  items
})

export const answers = (list: KList): ListAnswer => () => Effect.succeed(list)
export const failsWith = (error: ApiError): ListAnswer => () => Effect.fail(error)

/** Sends `events` at once, then keeps the watch open `openMs` and closes it cleanly. */
export const events = (events: ReadonlyArray<WatchEvent>, openMs = 0): WatchAnswer => () =>
  Stream.concat(Stream.fromIterable(events), Stream.execute(Effect.sleep(openMs)))

/** Open for `openMs`, then the request fails (HTTP status). */
export const watchFails = (error: ApiError, openMs = 0): WatchAnswer => () =>
  Stream.concat(Stream.execute(Effect.sleep(openMs)), Stream.fail(error))

export const errorEvent = (status: Status): WatchEvent => ({ type: "ERROR", object: status as unknown as KObject })
export const bookmark = (rv: string): WatchEvent => ({ type: "BOOKMARK", object: { kind: "ConfigMap", metadata: { resourceVersion: rv } } })

/** Runs `body` with the scripted client in virtual time for `forMs`, then interrupts everything. */
export const runScripted = <A>(script: Script, body: Effect.Effect<A, never, ApiClient | Scope.Scope>, forMs: number): { readonly value: A; readonly log: Log } => {
  const log = newLog()
  const sim = Simulation.make({ seed: 1 })
  const exit = sim.run(
    Effect.scoped(
      Effect.gen(function* () {
        const value = yield* body
        yield* Effect.sleep(forMs)
        return value
      })
    ).pipe(Effect.provideService(ApiClient, scriptedClient(script, log))),
    { maxDuration: forMs + 1 }
  )
  sim.interruptAll()
  if (!exit || exit._tag === "Failure") throw new Error(`scripted run failed: ${exit ? String(exit.cause) : "did not finish"}`)
  return { value: exit.value, log }
}
