/**
 * The spec of a lease renewal's body: the lease's spec with a new `renewTime`, its keys in their order. A lease an
 * agent created (`LeaseRenewer.newLease`) and renewed since has exactly the keys `holderIdentity`,
 * `leaseDurationSeconds`, `renewTime`, and such a spec is built as a literal of them: ~4× cheaper than the spread a
 * spec of any other shape takes, at ~500 renewals a second in the 5,000-node hour (docs/benchmarks.md "Where a lease
 * renewal's CPU goes"). The same object either way: own data properties, the same values, in the same order.
 */
import { extendable } from "../../src/api/internal/V8Shapes.js"
import { knownRenewal } from "../apiserver/KnownRenewal.js"

export const renewalSpec = (spec: Readonly<Record<string, unknown>>, renewTime: string): Record<string, unknown> =>
  hasAgentKeys(spec)
    ? { holderIdentity: spec.holderIdentity, leaseDurationSeconds: spec.leaseDurationSeconds, renewTime }
    : { ...extendable, ...spec, renewTime }

/**
 * What an agent keeps of the spec it built last (fields of its state, read with the rest of it): the stored spec is
 * that very object after a renewal was written (the server stores the body's spec itself), so the next renewal takes
 * its values from here and does not read the stored spec, a cold object (docs/benchmarks.md).
 */
export interface RenewalMemo {
  /** The spec built last as a literal of the agent's keys; undefined after a spread. */
  renewalBase: Readonly<Record<string, unknown>> | undefined
  renewalHolder: unknown
  renewalDuration: unknown
  renewalTime: string
}

/**
 * `renewalSpec(spec, renewTime)`, with `memo` kept: a spec this agent built itself is not read again. A spec that renews
 * its base by construction is noted for the server (`KnownRenewal.ts`).
 */
export const renewalSpecOf = (memo: RenewalMemo, spec: Readonly<Record<string, unknown>>, renewTime: string): Record<string, unknown> => {
  let holderIdentity: unknown
  let leaseDurationSeconds: unknown
  let was: unknown
  if (spec === memo.renewalBase) {
    holderIdentity = memo.renewalHolder
    leaseDurationSeconds = memo.renewalDuration
    was = memo.renewalTime
  } else if (hasAgentKeys(spec)) {
    holderIdentity = spec.holderIdentity
    leaseDurationSeconds = spec.leaseDurationSeconds
    was = spec.renewTime
  } else {
    memo.renewalBase = undefined
    return { ...extendable, ...spec, renewTime }
  }
  const built = { holderIdentity, leaseDurationSeconds, renewTime }
  memo.renewalBase = built
  memo.renewalHolder = holderIdentity
  memo.renewalDuration = leaseDurationSeconds
  memo.renewalTime = renewTime
  if (holderIdentity !== undefined && leaseDurationSeconds !== undefined && typeof was === "string" && renewTime !== was) knownRenewal(built, spec)
  return built
}

/** `spec`'s enumerable keys are exactly `holderIdentity`, `leaseDurationSeconds`, `renewTime`, in that order. */
const hasAgentKeys = (spec: Readonly<Record<string, unknown>>): boolean => {
  let n = 0
  for (const key in spec) {
    if (n === 0 ? key !== "holderIdentity" : n === 1 ? key !== "leaseDurationSeconds" : n !== 2 || key !== "renewTime") return false
    n++
  }
  return n === 3
}
