/**
 * What every part of a node-agent shard shares: the one due-time queue of all its agents' next events, the clock
 * reading of its last wake-up, the way a request is sent, and the fault checks. The parts (registration, lease
 * renewer, status reporter, pod starter) schedule through `at` and send through `send`; the shard's fiber pops what
 * is due and runs the requests they return.
 */
import { Effect, Either } from "effect"
import { type ClientError, failureKey, hasStatusCode } from "../../src/client/TransportError.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import type { SeededRandomService } from "../kernel/SeededRandom.js"
import { DueQueue } from "../kernel/DueQueue.js"
import type { NodeAgentEnvironment, PodWaiting } from "./AgentEnvironment.js"
import type { AgentState } from "./AgentState.js"
import { inside } from "./SimulatedNode.js"
import { TimeText } from "./TimeText.js"

/** The kinds of due events, the queue's tag. */
export const enum Kind {
  Register,
  Lease,
  Status,
  PostStatus,
  /** Pods were bound to the agent's node (its `pending`): their pod workers start. */
  PodsBound,
  PodStart,
  PodRunning,
  PodWaiting
}

/** What is due: an agent, or for a pod the agent and the pod's key. */
export type Due = AgentState | PodStart

export interface PodStart {
  readonly agent: AgentState
  readonly pod: string
  /** For `PodWaiting`: how the pod waits, and when it is tried again. */
  readonly waiting?: PodWaiting
}

export type { PodWaiting } from "./AgentEnvironment.js"

/** A request an event handler makes (run by the shard's fiber), or nothing. */
export type Request = Effect.Effect<void> | undefined

export const ignore = (): void => {}

/** The code a given-up request failed with (`ShardContext.givenUp`). */
const tooManyRequests = "429"

/** The failure a request may end in without counting as failed (a 404 of a GET before a create): a server's answer. */
const isExpected = (e: ClientError, expected: number | undefined): boolean => expected !== undefined && hasStatusCode(e, expected)

export class ShardContext {
  readonly due: DueQueue<Due>
  readonly text = new TimeText()
  /** The heartbeat client's timeout: min(nodeStatusUpdateFrequency, lease duration). */
  readonly timeoutMs: number
  /** The fiber's clock at its last wake-up: when the server sees the shard's requests. */
  now = 0

  constructor(
    readonly env: NodeAgentEnvironment,
    private readonly random: SeededRandomService
  ) {
    this.due = new DueQueue(env.resolutionMs)
    this.timeoutMs = Math.min(env.settings.nodeStatusUpdateFrequencyMs, env.settings.nodeLeaseDurationSeconds * 1000)
  }

  /** Makes `kind` due for `a` at `time`. */
  at(a: AgentState, time: number, kind: Kind): void {
    this.due.push(a, time, kind)
  }

  /**
   * Sends agent `a`'s request through its client and hands its answer to `onSuccess` / `onFailure`, which may send follow-up
   * requests the same way. An in-process client answers at once (no fiber step per request: most of a shard's
   * time otherwise); any other client's request is returned for the shard's fiber to run, or in real time to
   * launch, after the run's total QPS limit lets it go.
   *
   * The three functions are given the agent: a part that sends the same request for every agent (the lease
   * renewal, ~500 a second in the 5,000-node hour) makes them once and keeps the request's own values in the
   * agent's state (`AgentState.renewal`), rather than three closures and their context per request.
   */
  send<A>(
    a: AgentState,
    request: (client: ApiClientService, a: AgentState) => Effect.Effect<A, ClientError>,
    onSuccess: (answer: A, a: AgentState) => Request | void,
    onFailure: (error: ClientError, a: AgentState) => Request | void,
    /** A status code that is an answer, not an error (the ensure-lease GET's 404). */
    expected?: number
  ): Request {
    const { live } = this.env
    const client = a.client ?? (a.client = this.env.clientOf?.(a.node.name) ?? this.env.client)
    const answer = request(live !== undefined ? client : (client.at?.(this.now) ?? client), a)
    if (Either.isEither(answer)) {
      const done = answer as Either.Either<A, ClientError>
      if (Either.isRight(done)) return onSuccess(done.right, a) as Request
      if (!isExpected(done.left, expected)) this.failed(done.left)
      return onFailure(done.left, a) as Request
    }
    return this.later(a, answer, onSuccess, onFailure, expected)
  }

  /**
   * An answer still to come, as the request the shard's fiber runs. Apart from `send`: its closures would make
   * `send` allocate their context on every call, answered at once or not.
   */
  private later<A>(
    a: AgentState,
    answer: Effect.Effect<A, ClientError>,
    onSuccess: (answer: A, a: AgentState) => Request | void,
    onFailure: (error: ClientError, a: AgentState) => Request | void,
    expected: number | undefined
  ): Request {
    const live = this.env.live
    const handled = Effect.matchEffect(answer, {
      onSuccess: (answered) => (onSuccess(answered, a) as Request) ?? Effect.void,
      onFailure: (e) => {
        if (!isExpected(e, expected)) this.failed(e)
        return (onFailure(e, a) as Request) ?? Effect.void
      }
    })
    const delay = live?.total?.reserve(live.now()) ?? 0
    if (delay <= 0) return handled
    const metrics = this.env.metrics
    metrics.throttled++
    metrics.throttledMs += delay
    return Effect.zipRight(Effect.sleep(delay), handled)
  }

  /**
   * When a request whose modelled end is `modelled` ended: that time in a simulation, the clock's reading when
   * its answer came in real time (what the next event counts from, and what latencies are measured to).
   */
  ended(modelled: number): number {
    return this.env.live === undefined ? modelled : this.env.live.now()
  }

  /**
   * The request just booked was given up (`ServiceTimeModel.lastGivenUp`: 429 on every one of client-go's retries):
   * a failed request, never sent, counted with the others as its 429. Answers when the agent learns of it — when
   * the last 429 was answered (`lastRejection`, `ended`) — in whole milliseconds, as the due queue keeps events.
   */
  givenUp(lastRejection: number): number {
    this.count(tooManyRequests)
    return Math.ceil(this.ended(lastRejection))
  }

  private failed(e: ClientError): void {
    this.count(failureKey(e))
  }

  private count(code: string): void {
    const counts = this.env.metrics.errorsByCode
    counts[code] = (counts[code] ?? 0) + 1
  }

  /** The agent is dead at `t`: it writes nothing more. */
  stopped(a: AgentState, t: number): boolean {
    return a.undisturbedUntil !== undefined && t >= a.undisturbedUntil && t >= a.node.stoppedAt
  }

  /** The agent reaches the server at `t` (not partitioned, the server not paused). */
  reachable(a: AgentState, t: number): boolean {
    return a.undisturbedUntil === undefined || t < a.undisturbedUntil || (!inside(a.node.partitions, t) && !inside(this.env.pauses, t))
  }

  /** `interval` stretched by up to `factor` (wait.Jitter). */
  jittered(interval: number, factor: number): number {
    return interval * (1 + factor * this.random.next())
  }
}
