/**
 * The one request entry of the API server. Every transport — the effectful verbs, the HTTP fast path and the
 * in-process client's immediate view — lets a request in here: it waits while an admin pause holds requests,
 * drops history that left the window (upstream compacts storage as time passes; here on arrival, once per
 * instant), and takes the arrival time the request runs at. Authentication and authorization belong here too.
 */
import { Clock, Deferred, Duration, Effect, Either } from "effect"
import type { ServerState } from "./ServerState.js"

export class Admission {
  /** Open while the server answers; admin "pause" swaps in an unresolved one. */
  private pauseGate: Deferred.Deferred<void> | undefined
  private compactedAt = Number.NEGATIVE_INFINITY

  constructor(private readonly state: ServerState) {}

  /**
   * Lets `request` in: waits while paused, compacts, then runs it at the arrival time — synchronously, in one
   * effect step, when the server is not paused (in-process clients such as thousands of simulated agents make
   * most requests).
   */
  admitted<A, E>(request: (now: number) => Either.Either<A, E> | Effect.Effect<A, E>): Effect.Effect<A, E> {
    return Effect.clockWith((clock) => {
      const gate = this.pauseGate
      return gate ? Effect.zipRight(Deferred.await(gate), Effect.suspend(() => this.arrive(clock, request))) : this.arrive(clock, request)
    })
  }

  private arrive<A, E>(clock: Clock.Clock, request: (now: number) => Either.Either<A, E> | Effect.Effect<A, E>) {
    const now = clock.unsafeCurrentTimeMillis()
    this.compactUpTo(now)
    return request(now)
  }

  /** The arrival time of a request let in (after any pause). */
  readonly admit: Effect.Effect<number> = this.admitted((now) => Either.right(now))

  /**
   * Lets a request in at `now` on the spot, for a transport that answers without an effect; false while paused
   * (the request then takes the effectful path, which waits).
   */
  enterNow(now: number): boolean {
    if (this.pauseGate !== undefined) return false
    this.compactUpTo(now)
    return true
  }

  /** True while an admin pause holds requests. */
  get paused(): boolean {
    return this.pauseGate !== undefined
  }

  /** Stop answering for `ms` (requests wait), as an overloaded or restarting server would. */
  pause(ms: number): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const gate = yield* Deferred.make<void>()
      this.pauseGate = gate
      yield* Effect.forkDaemon(
        Effect.sleep(Duration.millis(ms)).pipe(
          Effect.zipRight(Effect.sync(() => {
            if (this.pauseGate === gate) this.pauseGate = undefined
          })),
          Effect.zipRight(Deferred.succeed(gate, undefined))
        )
      )
    })
  }

  /**
   * Drops history that left the window every `periodMs` as well, so it is bounded while no request comes in
   * (upstream compacts storage on a timer too: kube-apiserver's `--etcd-compaction-interval`).
   */
  compactEvery(periodMs: number): Effect.Effect<never> {
    return Effect.forever(
      Effect.sleep(periodMs).pipe(
        Effect.zipRight(Clock.currentTimeMillis),
        Effect.map((now) => this.compactUpTo(now))
      )
    )
  }

  /** Drops history that left the window (once per instant is enough). */
  private compactUpTo(now: number): void {
    if (now === this.compactedAt) return
    this.compactedAt = now
    this.state.store.compactBefore(now - this.state.config.historyWindowMs)
  }
}
