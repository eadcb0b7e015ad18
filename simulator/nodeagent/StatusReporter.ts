/**
 * Node status (upstream kubelet `syncNodeStatus` / `tryUpdateNodeStatus`): every
 * nodeStatusUpdateFrequency (jitter 0.04) the agent GETs its Node (`resourceVersion=0`: the watch cache, i.e. its
 * last write), computes its conditions, and PATCHes `nodes/<name>/status` iff they changed or
 * nodeStatusReportFrequency passed — through the node's platformAPIQPS / platformAPIBurst bucket (delays).
 */
import type { KObject } from "../../src/api/Object.js"
import { Nodes } from "../../src/api/Resources.js"
import { recordMillis } from "../../src/loadgen/LatencyRecorder.js"
import type { AgentState } from "./AgentState.js"
import { desiredConditions, mergeConditions, statusChanged, type NodeCondition } from "./NodeStatus.js"
import { ignore, Kind, type Request, type ShardContext } from "./ShardContext.js"
import { checkedNow, reported, reportDue, unchangedSinceCheck } from "./StatusCheckMemo.js"

export const statusJitterFactor = 0.04

const statusOptions = { subresource: "status" } as const

export class StatusReporter {
  /**
   * When the status PATCH of the last `post` is answered as booked (NaN when it sent none): a check that posts counts
   * its next period from then, also when the answer itself comes later (`ShardContext.answerAt`).
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
    if (!ctx.reachable(a, t)) {
      const next = Math.round(t + ctx.timeoutMs + ctx.jittered(env.settings.nodeStatusUpdateFrequencyMs, statusJitterFactor))
      ctx.at(a, next, Kind.Status)
      return
    }
    env.metrics.statusChecks++
    if (a.pending !== undefined) this.beforeCheck(a, t)
    // the GET (rv 0) answers the agent's own Node as its watch last delivered it; given up: tryUpdateNodeStatus
    // fails, and the node is checked again one period after the last 429
    if (!ctx.readOwnNode(a, t)) {
      this.next(a, ctx.answerAt)
      return
    }
    return this.checked(a, t, a.current, ctx.answerAt)
  }

  /**
   * The node as its GET read it (undefined: gone) at `t`, answered at `end`: post when due, and check again. Whether
   * it changed and whether the report is due are decided without reading the Node or `lastReport` when they cannot
   * be (`StatusCheckMemo.ts`).
   */
  private checked(a: AgentState, t: number, current: KObject | undefined, end: number): Request {
    const env = this.ctx.env
    let post: Request
    if (current !== undefined) {
      let changed = false
      if (!unchangedSinceCheck(a)) {
        const status = current.status as { conditions?: ReadonlyArray<NodeCondition>; capacity?: Record<string, string> } | undefined
        changed = statusChanged(status?.conditions ?? [], desiredConditions(a.health), status?.capacity, a.capacity)
        checkedNow(a, changed)
      }
      if (changed || reportDue(a, t, env.settings.nodeStatusReportFrequencyMs)) {
        const delay = a.bucket.reserve(end)
        if (delay > 0) {
          this.ctx.at(a, Math.ceil(end + delay), Kind.PostStatus)
        } else {
          post = this.post(a, end)
          if (!Number.isNaN(this.postedUntil)) end = this.postedUntil
        }
      }
    }
    this.next(a, end)
    return post
  }

  /** The next check, one jittered period after `end`. */
  private next(a: AgentState, end: number): void {
    this.ctx.at(a, Math.round(end + this.ctx.jittered(this.ctx.env.settings.nodeStatusUpdateFrequencyMs, statusJitterFactor)), Kind.Status)
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
    const status = (current.status ?? {}) as { conditions?: ReadonlyArray<NodeCondition> }
    const conditions = mergeConditions(status.conditions ?? [], desiredConditions(a.health), ctx.text.seconds(t))
    const patch = { status: { capacity: a.capacity, allocatable: a.capacity, conditions } }
    const metrics = ctx.env.metrics
    const request = ctx.send(
      a,
      t,
      (client) => client.patch(Nodes, a.node.name, "merge", patch, statusOptions),
      (_answer, _, end) => {
        reported(a, t, ctx.env.settings.nodeStatusReportFrequencyMs)
        metrics.statusPatches++
        recordMillis(metrics.statusLatency, end - t)
        metrics.observer?.statusUpdated(end - t)
      },
      ignore,
      ignore
    )
    this.postedUntil = ctx.answerAt
    return request
  }
}
