/**
 * A lease renewal's spec recognised by construction: the spec an agent built last (`nodeagent/RenewalSpec.ts`) as the
 * stored spec it renews with only a new `renewTime` — its keys `holderIdentity`, `leaseDurationSeconds`, `renewTime`
 * in that order, like the stored spec's, the first two the stored values (none undefined), the `renewTime` a string
 * other than the stored one. The server then knows what `LeaseRenewal.renewsOnly` and the key-order check would find
 * from two identities, without reading the stored spec, a cold object of one of 5,000 leases touched once per 10 s
 * (docs/benchmarks.md "Where a lease renewal's CPU goes"). The same idea as `CompactMicroTime.knownMicroTime`: the
 * renewal that sends the spec is written before the agent builds another; any other spec is compared field by field.
 */

let knownSpec: object | undefined = undefined
let knownBase: object | undefined = undefined

/** `spec` renews `base` as above (the builder has checked it): `isKnownRenewal(spec, base)` holds until the next note. */
export const knownRenewal = (spec: object, base: object): void => {
  knownSpec = spec
  knownBase = base
}

/** `spec` is the spec noted last, and `base` (the stored spec) the one it renews. */
export const isKnownRenewal = (spec: unknown, base: unknown): boolean => spec === knownSpec && base === knownBase && spec !== undefined
