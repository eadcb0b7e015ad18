/**
 * Honest outcomes: what a run must show besides its own thresholds to pass. A run whose requests mostly
 * failed, whose target never answered, or whose informers never synced does not pass unless the scenario
 * says so (`outcome:` in docs/scenarios.md). The checks are threshold results (`outcome:…`), so the
 * summary, the exit code and junit.xml treat them like any threshold.
 */
import { Either } from "effect"
import { parseCondition, type Threshold, type ThresholdResult } from "../../src/loadgen/Thresholds.js"
import { type ActionReport, reflectorRequestsOf, replayFailures } from "../../src/loadgen/Artifact.js"
import type { Scenario } from "./Scenario.js"

/** Errors allowed per metric when the scenario sets no `errors` threshold of its own. */
export const DefaultMaxErrorRate = 0.1

const isErrorsThreshold = (name: string): boolean => /^\s*errors\s*(\{|$)/.test(name)

/** A scenario with an `errors…` threshold of its own judges errors itself: `outcome:error-rate` is left out. */
const judgesErrorsItself = (scenario: Pick<Scenario, "thresholds">): boolean => Object.keys(scenario.thresholds ?? {}).some(isErrorsThreshold)

/** `errors{metric:*}: rate <= max`, unless the scenario judges errors itself. */
export const defaultErrorThreshold = (scenario: Pick<Scenario, "thresholds" | "outcome">): ReadonlyArray<Threshold> => {
  if (judgesErrorsItself(scenario)) return []
  const max = scenario.outcome?.maxErrorRate ?? DefaultMaxErrorRate
  return [
    {
      name: "outcome:error-rate",
      metric: "errors",
      selector: {},
      groupBy: ["metric"],
      // a run without requests has no error rate to judge; `outcome:any-success` and the scenario's own thresholds speak for it
      conditions: [{ ...Either.getOrThrow(parseCondition(`rate <= ${max}`, "rate")), allowNoData: true }]
    }
  ]
}

export interface OutcomeInput {
  readonly scenario: Pick<Scenario, "outcome" | "thresholds">
  readonly series: ReadonlyArray<{ readonly count: number; readonly errors: number; readonly key?: { readonly metric: string } }>
  readonly actions: ReadonlyArray<ActionReport>
  /** Every error the run saw, also those outside series (watchers, informers, setup namespaces). */
  readonly errorsTotal: number
  /** Setup namespaces that could not be created (they are outside the series). */
  readonly setupNamespaceErrors?: number
  /** Setup creates never answered: the run was stopped during its setup. */
  readonly setupUnfinished?: number
}

export const check = (threshold: string, condition: string, observed: number, passed: boolean, group: ThresholdResult["group"] = {}): ThresholdResult => ({
  threshold,
  condition,
  group,
  observed,
  series: 0,
  noData: false,
  passed
})

/**
 * Informers that never synced, a setup that did not create every object, and a run in which nothing succeeded
 * although something failed.
 */
export const outcomeChecks = (o: OutcomeInput): ReadonlyArray<ThresholdResult> => {
  const out: Array<ThresholdResult> = []
  if (o.scenario.outcome?.requireInformerSync !== false) {
    for (const a of o.actions) {
      if (!a.informers) continue
      const { synced, count } = a.informers
      out.push(check("outcome:informers-synced", `synced == ${count}`, synced, synced >= count, { phase: a.phase, name: a.action }))
    }
  }
  if (o.scenario.outcome?.requireSetup !== false) {
    // the phases measure a server holding what setup made: a missing object skews every later figure
    const setup = o.series.filter((s) => s.key?.metric === "setup")
    const failed = setup.reduce((n, s) => n + s.errors, 0) + (o.setupNamespaceErrors ?? 0)
    if (setup.length > 0 || failed > 0) out.push(check("outcome:setup-complete", "failed setup creates == 0", failed, failed === 0))
    // a setup stopped midway is not complete though none of its creates failed
    const unfinished = o.setupUnfinished ?? 0
    if (unfinished > 0) out.push(check("outcome:setup-complete", "unfinished setup creates == 0", unfinished, false))
  }
  if (!judgesErrorsItself(o.scenario)) {
    // a watch that never opened or an informer whose LISTs fail is no series sample (their series time events and
    // syncs): its own requests are judged per action by the same rate, k6's failed requests over those sent
    const max = o.scenario.outcome?.maxErrorRate ?? DefaultMaxErrorRate
    for (const a of o.actions) {
      const r = reflectorRequestsOf(a)
      if (r === undefined) continue
      const rate = r.failedRequests / r.requests
      out.push(check("outcome:error-rate", `rate <= ${max}`, rate, rate <= max, { phase: a.phase, name: a.action }))
    }
  }
  for (const a of o.actions) {
    if (!a.replay) continue
    // a replay passes only if every request got the code the log has (docs/replay.md "Reading the report")
    const failed = replayFailures(a.replay)
    out.push(check("outcome:replay-matches", "failed replayed requests == 0", failed, failed === 0, { phase: a.phase, name: a.action }))
    // a replay that sent nothing (its logs held no request to send) proves nothing: checked before the run too (preflight)
    if (a.replay.requests.planned === 0) out.push(check("outcome:replay-requests", "replayed requests > 0", 0, false, { phase: a.phase, name: a.action }))
    if (a.replay.seeding.failed > 0) out.push(check("outcome:replay-seeded", "failed seed creates == 0", a.replay.seeding.failed, false, { phase: a.phase, name: a.action }))
  }
  if (o.scenario.outcome?.requireSuccess !== false && o.errorsTotal > 0) {
    const succeeded = o.series.reduce((n, s) => n + Math.max(0, s.count - s.errors), 0)
    out.push(check("outcome:any-success", "successful requests > 0", succeeded, succeeded > 0))
  }
  return out
}
