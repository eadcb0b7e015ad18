/**
 * The series a scenario can produce, read from its setup, actions and sections without running it: the keys
 * `Run.ts`, `Operations.ts`, `Watchers.ts`, `Informers.ts`, `ReflectorMetrics.ts`, `TokenExpiry.ts` and the
 * cluster's pod start-up series (`ImagePulls.ts`, `PodStartupSli.ts`) record. `validate` rejects a threshold no
 * pattern can match, and the `slo` preset keeps only the rows one can (docs/scenarios.md "Thresholds").
 * Where a value is not known statically the pattern leaves the tag out (any value): only a certain miss is an error.
 */
import { resolveResource } from "../../src/api/Resources.js"
import { ListPhaseNames, RelistTriggers } from "../../src/informer/RelistPhases.js"
import { createToObservedSeries } from "../../simulator/cluster/PodStartupSeries.js"
import { withoutPullsSeries, withPullsSeries } from "../../simulator/nodeagent/images/ImagePulls.js"
import type { SeriesPattern } from "../../src/loadgen/SeriesPattern.js"
import type { ClusterMetric } from "../../src/loadgen/ClusterMetrics.js"
import { priorityLevels } from "../../simulator/apiserver/apf/Bootstrap.js"
import { rejectReasons } from "../../simulator/apiserver/apf/RealTimeApf.js"
import { keyOf, namespaceFor, resolveRequest } from "./Operations.js"
import { actionName, type Action, type Scenario } from "./Scenario.js"

const scopeOf = (namespaced: boolean, namespace: string | undefined): string => (namespaced && namespace !== undefined ? "namespace" : "cluster")

const actionSeries = (s: Scenario, a: Action, name: string, phase: string): ReadonlyArray<SeriesPattern> => {
  const tags = { name: [name], phase: [phase] }
  switch (a.type) {
    case "constant-arrival-rate":
    case "ramping-arrival-rate":
    case "closed": {
      const setKnown = a.request.objects === undefined || s.setup?.objects?.some((o) => o.name === a.request.objects) === true
      if (!setKnown || (a.request.resource === undefined && a.request.objects === undefined)) return [tags] // the cross-checks report it
      const r = resolveRequest(s, a.request)
      const key = keyOf(r)
      const one = (metric: string, operation: string, scope: string): SeriesPattern => ({ metric: [metric], operation: [operation], resource: [key.resource], scope: [scope], ...tags })
      // a churn iteration is one create and one delete besides the iteration itself (Operations.ts)
      if (a.request.verb === "churn") return [one(key.metric, key.operation, key.scope), one("api_call", "POST", "resource"), one("api_call", "DELETE", "resource")]
      return [one(key.metric, key.operation, key.scope)]
    }
    case "watch": {
      const r = resolveResource(a.resource)!
      return [{ metric: ["watch_event"], operation: ["WATCH"], resource: [r.plural], scope: [scopeOf(r.namespaced, a.namespace)], ...tags }]
    }
    case "informers": {
      const r = resolveResource(a.resource)!
      const on = { resource: [r.plural], scope: [scopeOf(r.namespaced, a.namespace)], ...tags }
      return [
        { metric: ["informer_sync"], operation: ["LIST"], ...on },
        { metric: ["initial_list"], operation: [...ListPhaseNames.initial_list], ...on },
        { metric: ["relist"], operation: [...ListPhaseNames.relist], ...on },
        { metric: ["relist_trigger"], operation: [...RelistTriggers], ...on },
        { metric: ["watch_event"], operation: ["ADDED", "MODIFIED"], ...on }
      ]
    }
    case "expire-continue-token": {
      const r = resolveResource(a.resource)!
      const on = { operation: ["LIST"], resource: [r.plural], scope: [scopeOf(r.namespaced, namespaceFor(r, a.namespace))], ...tags }
      return [{ metric: ["paged_list"], ...on }, { metric: ["full_list_after_expiry"], ...on }]
    }
    case "expire-tokens":
      // every action's client reports its recovery, under that action's tags
      return [{ metric: ["token_recovery"], operation: ["AUTH"], resource: ["credentials"], scope: ["client"] }]
    case "compact":
    case "drop-watches":
    case "pause":
      return []
    case "replay":
      // the recorded requests' series: api_call per verb and resource, any (src/replay/Replay.ts replayKey)
      return [{ metric: ["api_call"], ...tags }]
  }
}

/**
 * Pod start-up series of a cluster: in virtual time those of its image pulls (only with `cluster.images`), on the
 * real clock the SLI from creation to observed Running; `validate` does not know which clock a run will use.
 */
const podStartupNames = (s: Scenario, clock: Clock | undefined): ReadonlyArray<string> => [
  ...(clock !== "real" && s.cluster?.images !== undefined ? [withoutPullsSeries, withPullsSeries] : []),
  ...(clock !== "virtual" ? [createToObservedSeries] : [])
]

/** The clock a cluster runs on: virtual (`run`), real (against a target); undefined when either may. */
export type Clock = "virtual" | "real"

/** Every series the scenario can produce, as patterns (`SeriesPattern.ts`). */
export const possibleSeries = (s: Scenario, clock?: Clock): ReadonlyArray<SeriesPattern> => [
  ...(s.setup?.objects ?? []).flatMap((o): ReadonlyArray<SeriesPattern> => {
    const r = resolveResource(o.resource)
    return r === undefined ? [] : [{ metric: ["setup"], operation: ["POST"], resource: [r.plural], scope: ["resource"], name: [o.name], phase: ["setup"] }]
  }),
  ...s.phases.flatMap((p) => p.actions.flatMap((a, i) => actionSeries(s, a, actionName(a, i), p.name))),
  ...(s.cluster !== undefined && podStartupNames(s, clock).length > 0
    ? [{ metric: ["pod_startup"], operation: ["start"], resource: ["pods"], scope: ["namespace"], name: podStartupNames(s, clock) }]
    : [])
]

/**
 * The tag values a cluster metric's samples can carry (simulator/cluster/ClusterFigures.ts): APF's priority levels
 * (apiserver/apf/Bootstrap.ts) and reject reasons, Ready's statuses. A metric left out has no tags; an empty list:
 * the cluster has no such samples (APF off).
 */
export const clusterSeries = (s: Scenario): Partial<Record<ClusterMetric, ReadonlyArray<SeriesPattern>>> => {
  const serviceTime = s.cluster?.serviceTime
  const apf = serviceTime?.apf !== false && serviceTime?.sharedSeats === undefined
  const levels = priorityLevels.map((l) => l.name)
  const limited = priorityLevels.filter((l) => l.type === "Limited").map((l) => l.name)
  return {
    apf_dispatched: apf ? [{ priority_level: levels }] : [],
    apf_rejected: apf ? [{ priority_level: limited, reason: [...rejectReasons] }] : [],
    ready_transitions: [{ status: ["True", "False", "Unknown"] }]
  }
}
