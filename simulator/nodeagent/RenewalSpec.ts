/**
 * The spec of a lease renewal's body: the lease's spec with a new `renewTime`, its keys in their order. A lease an
 * agent created (`LeaseRenewer.newLease`) and renewed since has exactly the keys `holderIdentity`,
 * `leaseDurationSeconds`, `renewTime`, and such a spec is built as a literal of them: ~4× cheaper than the spread a
 * spec of any other shape takes, at ~500 renewals a second in the 5,000-node hour (docs/benchmarks.md "Where a lease
 * renewal's CPU goes"). The same object either way: own data properties, the same values, in the same order.
 */
import { extendable } from "../../src/api/internal/V8Shapes.js"

export const renewalSpec = (spec: Readonly<Record<string, unknown>>, renewTime: string): Record<string, unknown> =>
  hasAgentKeys(spec)
    ? { holderIdentity: spec.holderIdentity, leaseDurationSeconds: spec.leaseDurationSeconds, renewTime }
    : { ...extendable, ...spec, renewTime }

/** `spec`'s enumerable keys are exactly `holderIdentity`, `leaseDurationSeconds`, `renewTime`, in that order. */
const hasAgentKeys = (spec: Readonly<Record<string, unknown>>): boolean => {
  let n = 0
  for (const key in spec) {
    if (n === 0 ? key !== "holderIdentity" : n === 1 ? key !== "leaseDurationSeconds" : n !== 2 || key !== "renewTime") return false
    n++
  }
  return n === 3
}
