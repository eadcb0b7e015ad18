/**
 * What every part of a node-agent shard shares: the one due-time queue of all its agents' next events, the clock
 * reading of its last wake-up, the way a request is sent, and the fault checks. The parts (registration, lease
 * renewer, status reporter, pod starter) schedule through `at` and send through `send`; the shard's fiber pops what
 * is due and runs the requests they return.
 */
import { Effect, Either, Stream } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { Nodes } from "../../src/api/Resources.js"
import { type ClientError, failureKey, hasStatusCode } from "../../src/client/TransportError.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { hasImmediateView } from "../../src/client/Capabilities.js"
import type { SeededRandomService } from "../kernel/SeededRandom.js"
import { BookedClient } from "../apiserver/BookedClient.js"
import { nodeUser } from "../apiserver/auth/UserInfo.js"
import type { ModelIdentity } from "../apiserver/ModelRequests.js"
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

/** A node agent's identity as API Priority and Fairness sees it (the node authorizer's user and group, docs/apf.md). */
const nodeIdentity = (node: string): ModelIdentity => {
  const { name, groups } = nodeUser(node)
  return { user: name, groups }
}

const unsupported = () => Effect.die("only a booked GET of the agent's own Node is made here")

/**
 * Who answers the status check's booked GET (`ShardContext.readOwnNode`): no one — the answer is the agent's own
 * `current`, which the caller reads — so it answers with one constant, allocating nothing per call.
 */
const bookingOnly: ApiClientService = {
  get: () => unread,
  list: unsupported,
  create: unsupported,
  update: unsupported,
  patch: unsupported,
  delete: unsupported,
  deleteCollection: unsupported,
  watch: () => Stream.die("only a booked GET of the agent's own Node is made here")
}

const unread: Either.Either<KObject, ClientError> = Either.right({ metadata: {} })
/** resourceVersion=0: served from the watch cache (`tryUpdateNodeStatus`); the name is not looked up. */
const fromWatchCache = { resourceVersion: "0" } as const
/** The name the booked GET gives: the agent's own Node, which `current` is. */
const ownNode = ""

/** The failure a request may end in without counting as failed (a 404 of a GET before a create): a server's answer. */
const isExpected = (e: ClientError, expected: number | undefined): boolean => expected !== undefined && hasStatusCode(e, expected)

export class ShardContext {
  readonly due: DueQueue<Due>
  readonly text = new TimeText()
  /** The heartbeat client's timeout: min(nodeStatusUpdateFrequency, lease duration). */
  readonly timeoutMs: number
  /** The fiber's clock at its last wake-up: when the server sees the shard's requests. */
  now = 0
  /** The shard's booked calls (`BookedClient`): one for all its agents, pointed at the agent that calls. */
  private readonly booked: BookedClient
  /**
   * When the last request `send` made is answered as the model booked it (given up: when the agent learns of it, as
   * `onGivenUp` is told), known as it is sent. An answer the server cannot give at once (paused at the shard's
   * instant) comes to `onSuccess` / `onFailure` only after `send` returned: a part that counts from the answer before
   * it comes reads this right after `send` (the status check's next period, `StatusReporter.post`).
   */
  answerAt = Number.NaN

  constructor(
    readonly env: NodeAgentEnvironment,
    private readonly random: SeededRandomService
  ) {
    this.due = new DueQueue(env.resolutionMs)
    this.booked = new BookedClient(env.serviceTime)
    this.timeoutMs = Math.min(env.settings.nodeStatusUpdateFrequencyMs, env.settings.nodeLeaseDurationSeconds * 1000)
  }

  /** Makes `kind` due for `a` at `time`. */
  at(a: AgentState, time: number, kind: Kind): void {
    this.due.push(a, time, kind)
  }

  /**
   * Sends agent `a`'s request, made at `t`, and hands its answer to `onSuccess` / `onFailure` with the instant it came
   * (`ended`), which may send follow-up requests the same way. The request is booked on the service-time model as the
   * agent's node (`BookedClient`: the server's cost model, not the agent, says what it costs); one given up after
   * client-go's 429 retries is never sent, is counted as its 429, and goes to `onGivenUp` when its last 429 was
   * answered. An in-process client answers at once (no fiber step per request: most of a shard's time otherwise);
   * any other client's request is returned for the shard's fiber to run, or in real time to launch, after the run's
   * total QPS limit lets it go.
   *
   * The functions are given the agent and the instant the request was made: a part that sends the same request for
   * every agent (the lease renewal and the status check, each ~500 a second in the 5,000-node hour) makes them once
   * and keeps the request's own values in the agent's state (`AgentState.renewal`), rather than closures and their
   * context per request.
   */
  send<A>(
    a: AgentState,
    t: number,
    request: (client: BookedClient, a: AgentState) => Effect.Effect<A, ClientError> | undefined,
    onSuccess: (answer: A, a: AgentState, end: number, t: number) => Request | void,
    onFailure: (error: ClientError, a: AgentState, end: number, t: number) => Request | void,
    onGivenUp: (a: AgentState, at: number) => Request | void,
    /** A status code that is an answer, not an error (the ensure-lease GET's 404). */
    expected?: number
  ): Request {
    return this.sendThrough(a, t, this.clientAt(a), request, onSuccess, onFailure, onGivenUp, expected)
  }

  /**
   * The status check's GET of the agent's own Node from the server's watch cache (`resourceVersion: "0"`): booked as
   * any request, and answered with what the agent's own watch of the Node last delivered (`AgentState.current`; none:
   * a 404, an answer, not counted as failed) — the watch cache's content — without a lookup in the server, an answer
   * object or callbacks: ~500 a second in the 5,000-node hour (the lookup cost the hour ~9 CPU-s, the answer's
   * object and callbacks ~2 % of its steady state). True when answered, at `answerAt`; false when given up after
   * 429s (counted as its 429; the agent learns of it at `answerAt`).
   */
  readOwnNode(a: AgentState, t: number): boolean {
    const booked = this.booked
    booked.t = t
    booked.caller = a.requests ?? (a.requests = booked.callerOf(nodeIdentity(a.node.name)))
    booked.client = bookingOnly
    const answer = booked.get(Nodes, ownNode, fromWatchCache)
    booked.client = undefined
    const end = booked.completion.end
    if (answer === undefined) {
      this.answerAt = this.givenUp(end)
      return false
    }
    this.answerAt = end
    return true
  }

  private sendThrough<A>(
    a: AgentState,
    t: number,
    client: ApiClientService,
    request: (client: BookedClient, a: AgentState) => Effect.Effect<A, ClientError> | undefined,
    onSuccess: (answer: A, a: AgentState, end: number, t: number) => Request | void,
    onFailure: (error: ClientError, a: AgentState, end: number, t: number) => Request | void,
    onGivenUp: (a: AgentState, at: number) => Request | void,
    expected: number | undefined
  ): Request {
    const booked = this.booked
    booked.t = t
    booked.caller = a.requests ?? (a.requests = booked.callerOf(nodeIdentity(a.node.name)))
    booked.client = client
    const answer = request(booked, a)
    booked.client = undefined
    const end = booked.completion.end
    if (answer === undefined) {
      const at = (this.answerAt = this.givenUp(end))
      return onGivenUp(a, at) as Request
    }
    this.answerAt = end
    return this.answered(a, t, answer, end, onSuccess, onFailure, expected)
  }

  /**
   * Reads what the agent's informer cache holds (upstream's kubelet reads its pods from one): here the server's
   * current object, read without a booking — a cache read never reaches the server, so it costs the server model
   * nothing. Failures are counted as `send`'s are.
   */
  cached<A>(
    a: AgentState,
    read: (client: ApiClientService) => Effect.Effect<A, ClientError>,
    onSuccess: (answer: A, a: AgentState) => Request | void,
    onFailure: (error: ClientError, a: AgentState) => Request | void
  ): Request {
    return this.answered(a, this.now, read(this.clientAt(a)), this.now, onSuccess, onFailure, undefined)
  }

  /** The client agent `a` sends through now: in a simulation the server's immediate view at the shard's clock. */
  private clientAt(a: AgentState): ApiClientService {
    const client = a.client ?? (a.client = this.env.clientOf?.(a.node.name) ?? this.env.client)
    return this.env.live !== undefined || !hasImmediateView(client) ? client : (client.at(this.now) ?? client)
  }

  /** Hands an answer (at once when it is an `Either`, else as the request the shard's fiber runs) to its functions. */
  private answered<A>(
    a: AgentState,
    t: number,
    answer: Effect.Effect<A, ClientError>,
    end: number,
    onSuccess: (answer: A, a: AgentState, end: number, t: number) => Request | void,
    onFailure: (error: ClientError, a: AgentState, end: number, t: number) => Request | void,
    expected: number | undefined
  ): Request {
    if (Either.isEither(answer)) {
      const done = answer as Either.Either<A, ClientError>
      if (Either.isRight(done)) return onSuccess(done.right, a, end, t) as Request
      if (!isExpected(done.left, expected)) this.failed(done.left)
      return onFailure(done.left, a, end, t) as Request
    }
    return this.later(a, t, answer, end, onSuccess, onFailure, expected)
  }

  /**
   * An answer still to come, as the request the shard's fiber runs. Apart from `send`: its closures would make
   * `send` allocate their context on every call, answered at once or not.
   */
  private later<A>(
    a: AgentState,
    t: number,
    answer: Effect.Effect<A, ClientError>,
    modelled: number,
    onSuccess: (answer: A, a: AgentState, end: number, t: number) => Request | void,
    onFailure: (error: ClientError, a: AgentState, end: number, t: number) => Request | void,
    expected: number | undefined
  ): Request {
    const live = this.env.live
    const handled = Effect.matchEffect(answer, {
      onSuccess: (answered) => (onSuccess(answered, a, this.ended(modelled), t) as Request) ?? Effect.void,
      onFailure: (e) => {
        if (!isExpected(e, expected)) this.failed(e)
        return (onFailure(e, a, this.ended(modelled), t) as Request) ?? Effect.void
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
   * A request given up (429 on every one of client-go's retries): a failed request, never sent, counted with the
   * others as its 429. Answers when the agent learns of it — when the last 429 was answered (`lastRejection`,
   * `ended`) — in whole milliseconds, as the due queue keeps events.
   */
  private givenUp(lastRejection: number): number {
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

  /**
   * The agent's request made at `t` reaches the server (the node not partitioned at `t`, the server not paused when
   * the request arrives). It arrives at the shard's wake-up (`now`, up to a resolution step after `t`): a request made
   * just before a pause but sent at its start would be held by the paused server, and the shard's fiber, which runs the
   * request, with it — every agent of the shard frozen until the pause ends (a pause lasting to the run's end erased
   * its failures).
   */
  reachable(a: AgentState, t: number): boolean {
    if (a.undisturbedUntil === undefined) return true
    const arrives = this.now > t ? this.now : t
    return arrives < a.undisturbedUntil || (!inside(a.node.partitions, t) && !inside(this.env.pauses, arrives))
  }

  /** `interval` stretched by up to `factor` (wait.Jitter). */
  jittered(interval: number, factor: number): number {
    return interval * (1 + factor * this.random.next())
  }
}
