/**
 * What a node agent's status check (`StatusReporter.checked`, every 10 s per node) decides from small integers on the
 * agent's first cache line instead of two cold reads (issue 39, docs/benchmarks.md "Where a lease renewal's CPU goes"):
 * - whether its Node changed since the check that last found it unchanged: a count of the writes of `current`, not the
 *   Node object itself — comparing objects made V8 read the Node's map (a receiver check), a cache miss per check;
 * - whether the report may be due: a guard in whole seconds (a small integer, stored in the object) below which it
 *   is not, so `lastReport` — a fractional time, kept boxed in a heap number of its own — is read only near the due
 *   time (one check in ~30 with the 5-minute report frequency).
 * Both answer what the plain rules answer (`current !== checked`, `shouldPost`); anything that sets `current` or
 * `lastReport` goes through here.
 */
import type { KObject } from "../../src/api/Object.js"
import type { AgentState } from "./AgentState.js"

/** The agent's Node as its watch last delivered it (undefined: deleted). */
export const setCurrent = (a: AgentState, node: KObject | undefined): void => {
  a.current = node
  a.currentWrites++
}

/** Whether the Node and health are those the last check found unchanged (`current === checked`, health the same). */
export const unchangedSinceCheck = (a: AgentState): boolean => a.currentWrites === a.checkedWrites && a.health === a.checkedHealth

/** The check found `a.current` with `a.health` unchanged (`changed` false), or not. */
export const checkedNow = (a: AgentState, changed: boolean): void => {
  a.checked = changed ? undefined : a.current
  a.checkedWrites = changed ? -1 : a.currentWrites
  a.checkedHealth = changed ? undefined : a.health
}

/** A status report was written (or the Node registered) at `t`: the next is due `frequencyMs` after it. */
export const reported = (a: AgentState, t: number, frequencyMs: number): void => {
  a.lastReport = t
  a.reportNotBefore = reportGuard(t, frequencyMs)
}

/**
 * Whole seconds before which a report made at `t` is not due again: one second short of `t + frequencyMs`, so no
 * rounding of the float sum or division can put it past the due time. 0 (always look) when not a positive safe
 * integer (never reported: `lastReport` is -Infinity).
 */
export const reportGuard = (t: number, frequencyMs: number): number => {
  const s = Math.floor((t + frequencyMs) / 1_000) - 1
  return Number.isSafeInteger(s) && s > 0 ? s : 0
}

/** `shouldPost(false, t, a.lastReport, frequencyMs)`: the report period passed since the last report. */
export const reportDue = (a: AgentState, t: number, frequencyMs: number): boolean =>
  !(a.reportNotBefore > 0 && t < a.reportNotBefore * 1_000) && t - a.lastReport >= frequencyMs
