/**
 * What a store subscriber saw: every stored version as JSON by revision, and the previous version its change
 * carried. A write's fast path and the general path are compared on these (test/apiserver/LeaseRenewal.test.ts and
 * its kin).
 */
import type { ResourceType } from "../../src/api/Resources.js"
import type { Store } from "../../simulator/apiserver/Store.js"

export interface StoredVersions {
  readonly seen: Map<number, string>
  readonly previousOf: Map<number, string | undefined>
}

/** Records `store`'s changes from now on (of `only`'s objects, when given). */
export const storedVersions = (store: Store, only?: ResourceType): StoredVersions => {
  const seen = new Map<number, string>()
  const previousOf = new Map<number, string | undefined>()
  store.subscribe((c) => {
    if (only !== undefined && c.resource !== only) return
    seen.set(c.revision, JSON.stringify(c.object))
    previousOf.set(c.revision, c.previous === undefined ? undefined : JSON.stringify(c.previous))
  })
  return { seen, previousOf }
}
