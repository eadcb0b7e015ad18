/**
 * Simulated node agents, many per fiber. One long-lived fiber owns a shard of nodes and keeps every node's next
 * lease renewal, status tick and pod start in one due-time queue (`ShardContext`); it wakes at most once per
 * `resolutionMs` of virtual time and hands everything due to its part in a plain loop. Each event keeps its own
 * exact (whole-millisecond) time: renewTime, latencies and the next due time are computed from it, not from the
 * wake-up. (Measured: ~6.5 µs per fiber wake-up, so one fiber per node would not reach 5,000 nodes × 1 hour in
 * seconds; KWOK drives its nodes the same way, through one timer queue.)
 *
 * The parts, one file each, as upstream's kubelet has them: `Registration`, `LeaseRenewer`,
 * `StatusReporter`, `PodStarter`. Faults are per node (`SimulatedNode`): a stopped agent writes
 * nothing more; a request to an unreachable server (partition, paused server) fails after the heartbeat client
 * timeout min(nodeStatusUpdateFrequency, lease duration).
 *
 * Requests go through the environment's client (in simulations the in-process client, so every write takes the
 * server's full request path: admission, decoding, validation, optimistic concurrency, watch events). The
 * in-process client answers at once at the shard's clock (`ApiClientService.at`); any other client's request is an
 * effect the shard's fiber runs in place. Either way the server sees it at the wake-up: server-side times of agent
 * writes have the shard's resolution (1 s by default). What the agent itself writes (renewTime, heartbeat times) and
 * the latencies it records keep each event's exact time; latencies come from the `ServiceTimeModel`, not the host.
 */
import { Clock, Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { Alarm } from "../kernel/Alarm.js"
import type { SeededRandomService } from "../kernel/SeededRandom.js"
import { timers } from "../kernel/Timers.js"
import type { NodeAgentEnvironment } from "./AgentEnvironment.js"
import { prefetchAhead } from "./AgentPrefetch.js"
import { makeAgentState, type AgentState } from "./AgentState.js"
import type { PressureCondition } from "./eviction/Thresholds.js"
import { LeaseRenewer } from "./LeaseRenewer.js"
import { PodStarter } from "./PodStarter.js"
import { Registration } from "./Registration.js"
import { Kind, ShardContext, type Due, type PodStart, type Request } from "./ShardContext.js"
import type { SimulatedNode } from "./SimulatedNode.js"
import { setCurrent } from "./StatusCheckMemo.js"
import { StatusReporter } from "./StatusReporter.js"

/** Events a shard handles before it lets other fibers run. */
const yieldEvery = 256

export class NodeAgentShard {
  private readonly ctx: ShardContext
  private readonly agents = new Map<string, AgentState>()
  private readonly registration: Registration
  private readonly lease: LeaseRenewer
  private readonly status: StatusReporter
  private readonly pods: PodStarter
  /** The fiber's sleep, cut short when a pod is bound before the next due event. */
  private alarm: Alarm | undefined

  constructor(nodes: ReadonlyArray<SimulatedNode>, env: NodeAgentEnvironment, random: SeededRandomService) {
    const ctx = (this.ctx = new ShardContext(env, random))
    const pods = (this.pods = new PodStarter(ctx))
    const startPending = (a: AgentState, t: number) => pods.startPending(a, t)
    this.lease = new LeaseRenewer(ctx, startPending)
    this.status = new StatusReporter(ctx, startPending)
    this.registration = new Registration(ctx, (a, end) => {
      a.registered = true
      this.lease.begin(a, end)
      this.status.begin(a, end)
      if (a.pending !== undefined) pods.startPending(a, end)
    })
    for (const node of nodes) {
      const state = makeAgentState(node, env.settings, env.pauses)
      this.agents.set(node.name, state)
      ctx.at(state, node.startAt, Kind.Register)
    }
  }

  has(name: string): boolean {
    return this.agents.has(name)
  }

  /** Every write of a Node of this shard (the agent's watch of its own Node object). */
  nodeWritten(node: string, obj: KObject | undefined): void {
    const a = this.agents.get(node)
    if (a) setCurrent(a, obj)
  }

  /** The pressure conditions `node`'s eviction manager finds now; its agent posts them at its next status check. */
  setPressure(node: string, conditions: ReadonlySet<PressureCondition>): void {
    const a = this.agents.get(node)
    if (a === undefined) return
    a.health = {
      ...a.health,
      memoryPressure: conditions.has("MemoryPressure"),
      diskPressure: conditions.has("DiskPressure"),
      pidPressure: conditions.has("PIDPressure")
    }
  }

  /** A pod bound to `node` that is not Running yet, seen by the agent's watch at `t`: the agent starts it then. */
  podBound(node: string, podKey: string, t: number): void {
    const a = this.agents.get(node)
    if (a === undefined || !this.pods.bound(a, podKey, t)) return
    const next = this.ctx.due.nextDue()
    if (next !== undefined) this.alarm?.wakeBy(next)
  }

  /** A pod on `node` was deleted: what the agent gave it is free again (its address, with `env.network`). */
  podDeleted(node: string, podKey: string): void {
    if (this.ctx.env.network === undefined) return
    const a = this.agents.get(node)
    if (a !== undefined) this.pods.deleted(a, podKey)
  }

  /** The shard's fiber: sleep to the next due event (rounded up to the resolution), run everything due. */
  readonly run: Effect.Effect<never> = Effect.gen(this, function* () {
    const ctx = this.ctx
    const live = ctx.env.live
    // In real time answers push events while the fiber sleeps: it wakes at least once per resolution step.
    const longestSleep = live === undefined ? Infinity : ctx.env.resolutionMs
    const alarm = (this.alarm = new Alarm(yield* timers))
    let now = (ctx.now = yield* Clock.currentTimeMillis)
    for (;;) {
      const next = ctx.due.nextDue()
      if (next === undefined && live === undefined) return yield* Effect.never
      const wake = Math.min(Math.max(now, next ?? Infinity), now + longestSleep)
      if (wake > now) {
        yield* alarm.sleep(wake - now)
        now = ctx.now = yield* Clock.currentTimeMillis
      }
      const due = ctx.due
      let handled = 0
      for (let e = due.popDue(now); e !== undefined; e = due.popDue(now)) {
        prefetchAhead(due)
        const request = this.dispatch(due.tag, e, due.time)
        if (request !== undefined) yield* live === undefined ? request : live.launch(request)
        // Let watchers (other fibers) read between bursts, as they would while a second of writes goes by.
        if (++handled % yieldEvery === 0) yield* Effect.yieldNow()
      }
    }
  })

  /** Hands a due event to its part; returns the request it makes, if any, for the shard's fiber to run. */
  private dispatch(kind: Kind, due: Due, time: number): Request {
    switch (kind) {
      case Kind.Register:
        return this.registration.register(due as AgentState, time)
      case Kind.Lease:
        return this.lease.renew(due as AgentState, time)
      case Kind.Status:
        return this.status.check(due as AgentState, time)
      case Kind.PostStatus:
        return this.status.post(due as AgentState, time)
      case Kind.PodsBound:
        this.pods.startPending(due as AgentState, time)
        return undefined
      case Kind.PodStart:
        return this.pods.start((due as PodStart).agent, (due as PodStart).pod, time)
      case Kind.PodRunning:
        return this.pods.ready((due as PodStart).agent, (due as PodStart).pod, time)
      case Kind.PodWaiting:
        return this.pods.waiting((due as PodStart).agent, (due as PodStart).pod, (due as PodStart).waiting!, time)
    }
  }
}
