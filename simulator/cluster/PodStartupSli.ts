/**
 * Pod start-up latency as the official SLI counts it (upstream `test/e2e` "pod startup" SLI / clusterloader2
 * `PodStartupLatency`): from the pod's creation to the moment a watcher observes it Running, with the stages
 * between — scheduled (bound to a node), running (the node agent's status write) — each measured from creation.
 * Times are the clock's ms; a pod counts once, the first time it reaches each stage.
 *
 * Split over execution segments (docs/distributed.md "Real-time clusters"), a pod may be created (or first seen) in
 * one segment — the first, whose scheduler binds it — and written Running by another's agent, the node's owner; neither
 * can time its created → running stage alone. Each segment then hands on its half (`crossSegment`, ms since the run's
 * common start), and the merge joins them by pod (./ClusterResultMerge.ts).
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
  /** A segment's half of the stages another segment saw (by pod key, ms since the run's common start); merged away. */
  readonly crossSegment?: CrossSegmentStages
}

export interface CrossSegmentStages {
  /** Pods timed created here (from the creation, or from the segment's start if later) that no agent here ran. */
  readonly createdMs: Readonly<Record<string, number>>
  /** Pods an agent here wrote Running without this segment having timed their creation. */
  readonly runningMs: Readonly<Record<string, number>>
}

const keyOf = (pod: KObject) => `${pod.metadata.namespace ?? ""}/${pod.metadata.name ?? ""}`

export class PodStartupSli {
  private readonly pods = new Map<string, Stages>()
  private readonly toScheduled: Histogram = makeHistogram()
  private readonly toRunning: Histogram = makeHistogram()
  private readonly toObserved: Histogram = makeHistogram()
  /** Pods this process's agents ran that it did not see created (another segment did): when. */
  private readonly runningOnly = new Map<string, number>()

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
    else if (!this.runningOnly.has(keyOf(pod))) this.runningOnly.set(keyOf(pod), t)
  }

  /** A watcher received `pod` at `t`. */
  observed(pod: KObject, t: number): void {
    const stages = this.pods.get(keyOf(pod))
    if (stages === undefined) return
    if ((pod.spec as { nodeName?: string } | undefined)?.nodeName) this.stage(stages, "scheduled", t)
    if ((pod.status as { phase?: string } | undefined)?.phase === "Running") this.stage(stages, "observed", t)
  }

  /** How many pods this process's agents ran without having seen them created (another segment's). */
  get ranUnseen(): number {
    return this.runningOnly.size
  }

  /** The figures; with `segment`, also the stages left for the merge to join (`originMs`: the run's common start here). */
  result(segment?: { readonly originMs: number }): PodStartupResult {
    let observedRunning = 0
    for (const s of this.pods.values()) if (s.observed !== undefined) observedRunning++
    const of = (h: Histogram): StageSummary => ({ ...summarize(h), hdr: encodeHistogram(h) })
    const figures = { pods: this.pods.size, observedRunning, createToScheduled: of(this.toScheduled), createToRunning: of(this.toRunning), createToObserved: of(this.toObserved) }
    return segment === undefined ? figures : { ...figures, crossSegment: this.crossSegment(segment.originMs) }
  }

  private crossSegment(originMs: number): CrossSegmentStages {
    const createdMs: Record<string, number> = {}
    // measured from where stage() measures: the creation, or the start for a pod made before it
    for (const [key, s] of this.pods) if (s.running === undefined) createdMs[key] = Math.max(s.created, this.startMillis) - originMs
    const runningMs: Record<string, number> = {}
    for (const [key, t] of this.runningOnly) runningMs[key] = t - originMs
    return { createdMs, runningMs }
  }

  private stage(s: Stages, stage: "scheduled" | "running" | "observed", t: number): void {
    if (s[stage] !== undefined) return
    s[stage] = t
    const since = Math.max(0, t - Math.max(s.created, this.startMillis))
    recordMillis(stage === "scheduled" ? this.toScheduled : stage === "running" ? this.toRunning : this.toObserved, since)
  }
}
