/**
 * Pod start-up latency as the official SLI counts it (upstream `test/e2e` "pod startup" SLI / clusterloader2
 * `PodStartupLatency`): from the pod's creation to the moment a watcher observes it Running, with the stages
 * between — scheduled (bound to a node), running (the node agent's status write) — each measured from creation.
 * Times are the clock's ms; a pod counts once, the first time it reaches each stage.
 */
import type { KObject } from "../../src/api/Object.js"
import {
  encodeHistogram,
  makeHistogram,
  recordMillis,
  summarize,
  type Histogram,
  type Summary
} from "../../src/loadgen/LatencyRecorder.js"

interface Stages {
  readonly created: number
  scheduled?: number
  running?: number
  observed?: number
}

export type StageSummary = Summary & { readonly hdr: string }

export interface PodStartupResult {
  readonly pods: number
  /** Pods observed Running (the SLI's count). */
  readonly observedRunning: number
  readonly createToScheduled: StageSummary
  readonly createToRunning: StageSummary
  /** The SLI: creation → observed Running. */
  readonly createToObserved: StageSummary
}

const keyOf = (pod: KObject) => `${pod.metadata.namespace ?? ""}/${pod.metadata.name ?? ""}`

export class PodStartupSli {
  private readonly pods = new Map<string, Stages>()
  private readonly toScheduled: Histogram = makeHistogram()
  private readonly toRunning: Histogram = makeHistogram()
  private readonly toObserved: Histogram = makeHistogram()

  constructor(private readonly startMillis: number) {}

  /** The create request for `pod` was sent at `t`. */
  created(pod: KObject, t: number): void {
    const stages: Stages = { created: t }
    this.pods.set(keyOf(pod), stages)
    if ((pod.spec as { nodeName?: string } | undefined)?.nodeName) this.stage(stages, "scheduled", t)
  }

  /**
   * A watcher received `pod` at `t`, not yet bound, created by someone else (a load phase): its creation is timed
   * at that first sight, as the driver never sent the create. Pods the driver created keep their own time.
   */
  pending(pod: KObject, t: number): void {
    if (!this.pods.has(keyOf(pod))) this.pods.set(keyOf(pod), { created: t })
  }

  /** The node agent wrote `pod` Running at `t`. */
  running(pod: KObject, t: number): void {
    const stages = this.pods.get(keyOf(pod))
    if (stages) this.stage(stages, "running", t)
  }

  /** A watcher received `pod` at `t`. */
  observed(pod: KObject, t: number): void {
    const stages = this.pods.get(keyOf(pod))
    if (stages === undefined) return
    if ((pod.spec as { nodeName?: string } | undefined)?.nodeName) this.stage(stages, "scheduled", t)
    if ((pod.status as { phase?: string } | undefined)?.phase === "Running") this.stage(stages, "observed", t)
  }

  result(): PodStartupResult {
    let observedRunning = 0
    for (const s of this.pods.values()) if (s.observed !== undefined) observedRunning++
    const of = (h: Histogram): StageSummary => ({ ...summarize(h), hdr: encodeHistogram(h) })
    return { pods: this.pods.size, observedRunning, createToScheduled: of(this.toScheduled), createToRunning: of(this.toRunning), createToObserved: of(this.toObserved) }
  }

  private stage(s: Stages, stage: "scheduled" | "running" | "observed", t: number): void {
    if (s[stage] !== undefined) return
    s[stage] = t
    const since = Math.max(0, t - Math.max(s.created, this.startMillis))
    recordMillis(stage === "scheduled" ? this.toScheduled : stage === "running" ? this.toRunning : this.toObserved, since)
  }
}
