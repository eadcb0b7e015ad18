/**
 * Node status (upstream kubelet `syncNodeStatus` / `tryUpdateNodeStatus`): every
 * nodeStatusUpdateFrequency (jitter 0.04) the agent reads its Node (`resourceVersion=0`: the watch cache, i.e. its
 * last write), computes its conditions, and PATCHes `nodes/<name>/status` iff they changed or
 * nodeStatusReportFrequency passed — through the node's platformAPIQPS / platformAPIBurst bucket (delays).
 */
import { Nodes } from "../../src/api/Resources.js"
import { recordMillis } from "../../src/loadgen/LatencyRecorder.js"
import type { AgentState } from "./AgentState.js"
import { desiredConditions, mergeConditions, shouldPost, statusChanged, type NodeCondition } from "./NodeStatus.js"
import { ignore, Kind, type Request, type ShardContext } from "./ShardContext.js"

export const statusJitterFactor = 0.04

const statusOptions = { subresource: "status" } as const

/** Approximate request size for the service-time model. */
const statusBytes = 1_600

export class StatusReporter {
  /**
   * When the status PATCH of the last `post` completes (modelled), NaN when it sent none: a second result,
   * kept without allocating (the request itself may have been answered already).
   */
  private postedUntil = Number.NaN

  constructor(
    private readonly ctx: ShardContext,
    /** Called at every check: the agent's pods bound since its last event are started. */
    private readonly beforeCheck: (a: AgentState, t: number) => void
  ) {}

  /** The first check, one jittered period after registration completed at `end`. */
  begin(a: AgentState, end: number): void {
    this.ctx.at(a, Math.round(end + this.ctx.jittered(this.ctx.env.settings.nodeStatusUpdateFrequencyMs, statusJitterFactor)), Kind.Status)
  }

  check(a: AgentState, t: number): Request {
    const ctx = this.ctx
    if (ctx.stopped(a, t)) return
    const env = ctx.env
    const frequency = env.settings.nodeStatusUpdateFrequencyMs
    if (!ctx.reachable(a, t)) {
      const next = Math.round(t + ctx.timeoutMs + ctx.jittered(frequency, statusJitterFactor))
      ctx.at(a, next, Kind.Status)
      return
    }
    env.metrics.statusChecks++
    if (a.pending !== undefined) this.beforeCheck(a, t)
    // GET with resourceVersion=0: served from the watch cache, i.e. the last write of the node
    const model = env.serviceTime
    const got = model.complete(t, "read", 1, statusBytes, a.requests.nodeGet)
    const current = a.current
    let end = got
    let post: Request
    // given up: tryUpdateNodeStatus fails, and the node is checked again one period after the last 429
    if (model.lastGivenUp) end = ctx.givenUp(got)
    else if (current !== undefined) {
      let changed = false
      if (current !== a.checked || a.health !== a.checkedHealth) {
        const status = current.status as { conditions?: ReadonlyArray<NodeCondition>; capacity?: Record<string, string> } | undefined
        changed = statusChanged(status?.conditions ?? [], desiredConditions(a.health), status?.capacity, a.capacity)
        a.checked = changed ? undefined : current
        a.checkedHealth = changed ? undefined : a.health
      }
      if (shouldPost(changed, t, a.lastReport, env.settings.nodeStatusReportFrequencyMs)) {
        const delay = a.bucket.reserve(end)
        if (delay > 0) {
          ctx.at(a, Math.ceil(end + delay), Kind.PostStatus)
        } else {
          post = this.post(a, end)
          if (!Number.isNaN(this.postedUntil)) end = this.postedUntil
        }
      }
    }
    const next = Math.round(end + ctx.jittered(frequency, statusJitterFactor))
    ctx.at(a, next, Kind.Status)
    return post
  }

  /**
   * PATCH nodes/<name>/status. One given up after 429s writes nothing: the last report stays as it was, so the next
   * check (one period after the last 429) posts again.
   */
  post(a: AgentState, t: number): Request {
    const ctx = this.ctx
    this.postedUntil = Number.NaN
    if (ctx.stopped(a, t) || !ctx.reachable(a, t)) return
    const current = a.current
    if (current === undefined) return
    const model = ctx.env.serviceTime
    const until = (this.postedUntil = model.complete(t, "mutating", 0, statusBytes, a.requests.nodeStatusPatch))
    if (model.lastGivenUp) {
      this.postedUntil = ctx.givenUp(until)
      return
    }
    const status = (current.status ?? {}) as { conditions?: ReadonlyArray<NodeCondition> }
    const conditions = mergeConditions(status.conditions ?? [], desiredConditions(a.health), ctx.text.seconds(t))
    const patch = { status: { capacity: a.capacity, allocatable: a.capacity, conditions } }
    const metrics = ctx.env.metrics
    return ctx.send(
      a,
      (client) => client.patch(Nodes, a.node.name, "merge", patch, statusOptions),
      () => {
        a.lastReport = t
        metrics.statusPatches++
        recordMillis(metrics.statusLatency, ctx.ended(until) - t)
        metrics.observer?.statusUpdated(ctx.ended(until) - t)
      },
      ignore
    )
  }
}
