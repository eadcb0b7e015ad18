/**
 * The node agent's eviction manager as a self-contained component (upstream
 * `pkg/kubelet/eviction/eviction_manager.go`): every 10 s it observes the usage model, evaluates the thresholds,
 * reports pressure conditions (and their NoSchedule taints), and when a threshold is past its grace period records
 * `EvictionThresholdMet` on the node and evicts at most one pod: pod status phase Failed, reason Evicted, condition
 * DisruptionTarget, Warning `Evicted` event. After an eviction it waits 1 s (pod cleanup in the model is immediate) and
 * syncs again at once.
 *
 * Choices: the model has no images or dead containers, so disk signals go straight to pod eviction (step 7
 * reclaims nothing); pod grace periods are not modelled (the pod is gone on the next observation). The taints
 * are written here so the component works alone; in a full cluster the node lifecycle controller owns them
 * (`manageTaints: false`).
 */
import { Clock, Duration, Effect, Either } from "effect"
import { isRecord, type KObject } from "../../../src/api/Object.js"
import { extendable } from "../../../src/api/internal/V8Shapes.js"
import { parseQuantity } from "../../../src/api/go/Quantity.js"
import { Nodes, Pods } from "../../../src/api/Resources.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { rfc3339 } from "../../apiserver/SystemMeta.js"
import type { EventRecorderService } from "../../events/EventRecorder.js"
import type { Threshold } from "../config/eviction.js"
import {
  evaluate,
  evictionAnnotations,
  evictionMessage,
  initialState,
  isCritical,
  type PressureCondition,
  rankPods,
  resourceOf,
  taintOf,
  thresholdText,
  type EvictionState
} from "./Thresholds.js"
import { observe, type NodeUsageModel } from "./UsageModel.js"

export interface EvictionManagerConfig {
  readonly nodeName: string
  readonly thresholds: ReadonlyArray<Threshold>
  readonly model: NodeUsageModel
  /** Default 5 min. */
  readonly pressureTransitionPeriodMs?: number
  /** Default 10 s. */
  readonly monitoringPeriodMs?: number
  readonly recorder?: EventRecorderService
  /** Write the pressure taints on the Node (default true). */
  readonly manageTaints?: boolean
  /**
   * Write the pressure conditions (and, with `manageTaints`, the taints) on the Node (default true). A node
   * agent that posts its own status sets false and takes them from `onConditions`.
   */
  readonly writeConditions?: boolean
  readonly onEvicted?: (e: EvictionRecord) => void
  readonly onConditions?: (conditions: ReadonlySet<PressureCondition>, now: number) => void
}

export interface EvictionRecord {
  readonly atMs: number
  readonly pod: string
  readonly resource: string
  readonly signal: string
  readonly message: string
}

const parseBytes = (q: string): number => {
  const r = parseQuantity(q)
  return Either.isRight(r) ? r.right.value() : 0
}

const conditionTexts: Record<PressureCondition, { t: [string, string]; f: [string, string] }> = {
  MemoryPressure: {
    t: ["NodeAgentHasInsufficientMemory", "node agent has insufficient memory available"],
    f: ["NodeAgentHasSufficientMemory", "node agent has sufficient memory available"]
  },
  DiskPressure: { t: ["NodeAgentHasDiskPressure", "node agent has disk pressure"], f: ["NodeAgentHasNoDiskPressure", "node agent has no disk pressure"] },
  PIDPressure: {
    t: ["NodeAgentHasInsufficientPID", "node agent has insufficient PID available"],
    f: ["NodeAgentHasSufficientPID", "node agent has sufficient PID available"]
  }
}

const allConditions: ReadonlyArray<PressureCondition> = ["MemoryPressure", "DiskPressure", "PIDPressure"]

/** One node's manager: `pass` runs one monitoring pass and says whether it evicted a pod. */
export interface EvictionNode {
  readonly nodeName: string
  readonly pass: Effect.Effect<boolean>
  /** The same pass at a clock reading the caller already has (the shard reads the clock once per wake). */
  readonly passAt: (now: number) => Effect.Effect<boolean>
  readonly periodMs: number
}

/** Builds one node's manager state on the ambient clock (time 0 of its usage model = now). */
export const makeEvictionNode = (config: EvictionManagerConfig): Effect.Effect<EvictionNode, never, ApiClient> =>
  Effect.gen(function* () {
    const client = yield* ApiClient
    const start = yield* Clock.currentTimeMillis
    const period = config.monitoringPeriodMs ?? 10_000
    const transition = config.pressureTransitionPeriodMs ?? 5 * 60_000
    const gone = new Set<string>()
    let state: EvictionState = initialState
    let reported = new Set<PressureCondition>()
    const nodeRef = { kind: "Node", apiVersion: "v1", name: config.nodeName }

    const writeConditions = (conditions: ReadonlySet<PressureCondition>, now: number) =>
      Effect.gen(function* () {
        const got = yield* Effect.either(client.get(Nodes, config.nodeName))
        if (got._tag === "Left") return
        const node = got.right
        const status = isRecord(node.status) ? node.status : {}
        const others = (Array.isArray(status.conditions) ? (status.conditions as Array<Record<string, unknown>>) : []).filter(
          (c) => !allConditions.includes(c.type as PressureCondition)
        )
        const pressure = allConditions.map((c) => {
          const [reason, message] = conditions.has(c) ? conditionTexts[c].t : conditionTexts[c].f
          return { type: c, status: conditions.has(c) ? "True" : "False", reason, message, lastHeartbeatTime: rfc3339(now), lastTransitionTime: rfc3339(now) }
        })
        const next: KObject = { ...node, status: { ...status, conditions: [...pressure, ...others] } }
        yield* Effect.ignore(client.update(Nodes, next, { subresource: "status" }))
        if (config.manageTaints === false) return
        const fresh = yield* Effect.either(client.get(Nodes, config.nodeName))
        if (fresh._tag === "Left") return
        const spec = isRecord(fresh.right.spec) ? fresh.right.spec : {}
        const keys = new Set(Object.values(taintOf))
        const kept = (Array.isArray(spec.taints) ? (spec.taints as Array<Record<string, unknown>>) : []).filter((t) => !keys.has(String(t.key)))
        const added = allConditions.filter((c) => conditions.has(c)).map((c) => ({ key: taintOf[c], effect: "NoSchedule" }))
        yield* Effect.ignore(client.update(Nodes, { ...fresh.right, spec: { ...extendable, ...spec, taints: [...kept, ...added] } }))
      })

    const evict = (key: string, message: string, annotations: Record<string, string>, now: number) =>
      Effect.gen(function* () {
        const [ns, name] = key.split("/") as [string, string]
        const got = yield* Effect.either(client.get(Pods, name, { namespace: ns }))
        if (got._tag === "Right") {
          const pod = got.right
          const status = isRecord(pod.status) ? pod.status : {}
          const conditions = (Array.isArray(status.conditions) ? (status.conditions as Array<Record<string, unknown>>) : []).filter((c) => c.type !== "DisruptionTarget")
          conditions.push({ type: "DisruptionTarget", status: "True", reason: "TerminationByNodeAgent", message, lastTransitionTime: rfc3339(now) })
          yield* Effect.ignore(
            client.update(Pods, { ...pod, status: { ...status, phase: "Failed", reason: "Evicted", message, conditions } }, { namespace: ns, subresource: "status" })
          )
          if (config.recorder)
            yield* config.recorder.eventf(
              { kind: "Pod", apiVersion: "v1", name, namespace: ns, uid: pod.metadata.uid },
              undefined,
              "Warning",
              "Evicted",
              "Evicting",
              message,
              { annotations }
            )
        }
        gone.add(key)
      })

    /** One pass; true if a pod was evicted. */
    const noEviction = Effect.succeed(false)
    /** A quiet pass (no condition change, nothing to reclaim) stays synchronous: no effect steps at all. */
    const passAt = (now: number): Effect.Effect<boolean> => {
      const obs = observe(config.model, now - start, gone)
      const r = evaluate(config.thresholds, obs, state, now, transition)
      state = r.state
      const changed = r.conditions.size !== reported.size || [...r.conditions].some((c) => !reported.has(c))
      const t = r.toReclaim[0]
      if (!changed && !t) return noEviction
      return Effect.gen(function* () {
        if (changed) {
          reported = new Set(r.conditions)
          config.onConditions?.(reported, now - start)
          if (config.writeConditions !== false) yield* writeConditions(reported, now)
        }
        if (!t) return false
        const resource = resourceOf(t.signal)
        if (config.recorder)
          yield* config.recorder.eventf(nodeRef, undefined, "Warning", "EvictionThresholdMet", "Evicting", `Attempting to reclaim ${resource}`)
        const candidates = rankPods(obs.pods.filter((p) => !isCritical(p)), resource, parseBytes)
        const victim = candidates[0]
        if (!victim) return false
        const o = obs.signals[t.signal]!
        const message = evictionMessage(resource, thresholdText(t, o.capacity), o.available, victim, parseBytes)
        const key = `${victim.pod.namespace}/${victim.pod.name}`
        yield* evict(key, message, evictionAnnotations(resource, victim, parseBytes), now)
        config.onEvicted?.({ atMs: now - start, pod: key, resource, signal: t.signal, message })
        return true
      })
    }
    const pass = Effect.flatMap(Clock.currentTimeMillis, passAt)

    return { nodeName: config.nodeName, pass, passAt, periodMs: period }
  })

/** After an eviction the next pass comes after one 1 s cleanup poll (pods vanish at once in the model). */
const CLEANUP_POLL_MS = 1000

/** Runs one node's manager forever on the ambient clock. */
export const runEvictionManager = (config: EvictionManagerConfig): Effect.Effect<never, never, ApiClient> =>
  Effect.flatMap(makeEvictionNode(config), (node) =>
    Effect.forever(
      Effect.flatMap(node.pass, (evicted) => Effect.sleep(Duration.millis(evicted ? CLEANUP_POLL_MS : node.periodMs)))
    )
  )

/**
 * Many nodes' managers on one fiber (the shard pattern of the node agent: one timer per due instant, not a fiber
 * per node). Each node keeps its own 10 s cadence and 1 s follow-up after an eviction.
 */
export const runEvictionShard = (configs: ReadonlyArray<EvictionManagerConfig>): Effect.Effect<never, never, ApiClient> =>
  Effect.gen(function* () {
    const nodes = yield* Effect.forEach(configs, makeEvictionNode)
    const now0 = yield* Clock.currentTimeMillis
    const due = nodes.map(() => now0)
    while (true) {
      const next = Math.min(...due)
      const now = yield* Clock.currentTimeMillis
      if (next > now) yield* Effect.sleep(Duration.millis(next - now))
      const at = yield* Clock.currentTimeMillis
      for (let i = 0; i < nodes.length; i++) {
        if (due[i]! > at) continue
        const evicted = yield* nodes[i]!.passAt(at)
        due[i] = at + (evicted ? CLEANUP_POLL_MS : nodes[i]!.periodMs)
      }
    }
  })

