/**
 * A write's own managed-fields entry decided from the entries alone, for the writes the server recognises and writes
 * by their own paths (simulator/apiserver/LeaseRenewal.ts, NodeHeartbeat.ts): which entry is the writing manager's
 * when the write changes only leaves it alone owns, and the entries after it with that entry's new time — what
 * `ManagedFields.afterUpdate` would make of such a write, without comparing objects (docs/benchmarks.md "Where a
 * lease renewal's CPU goes").
 */
import { entry, isBuilt, isOwn, sortInOrder, type WriteScope } from "./ManagedFields.js"
import { type FieldTree, isMember, type ManagedFieldsEntry } from "./FieldSet.js"
import { capUpdateManagers } from "./UpdateManagerCap.js"

/**
 * `ownLeafEntry` of entries a renewal wrote (`withOwnEntryTime` of entries `ownLeafEntry` accepted) when there is one
 * entry: the sets are the ones accepted then and the entry is built here with the renewing manager's operation,
 * apiVersion and subresource, so only who renews now decides — read from the entry alone, without walking its set
 * (docs/benchmarks.md "Where a lease renewal's CPU goes"). Undefined for more entries (their order may have changed).
 */
export const ownLeafEntryOfRenewed = (entries: ReadonlyArray<ManagedFieldsEntry>, manager: string, scope: WriteScope): number | undefined =>
  entries.length !== 1 ? undefined : isOwn(entries[0]!, manager, "Update", scope) ? 0 : -1

/**
 * The index of `manager`'s own Update entry when a write that changes only the leaf `field` under `parent` (a lease
 * renewal's `f:spec` `f:renewTime`) takes `ManagedFields.refreshedOwnEntry`'s path: every entry built here, exactly one of them
 * this manager's, its set holding the leaf and no other entry's; -1 otherwise. Decided from the entries alone, so a
 * write known to change that one leaf (simulator/apiserver/LeaseRenewal.ts) compares no objects.
 */
export const ownLeafEntry = (entries: ReadonlyArray<ManagedFieldsEntry>, manager: string, scope: WriteScope, parent: string, field: string): number => {
  let own = -1
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!
    if (!isBuilt(e)) return -1
    const leafNode = e.fieldsV1[parent]?.[field]
    if (isOwn(e, manager, "Update", scope)) {
      if (own >= 0 || leafNode === undefined || !isMember(leafNode)) return -1
      own = i
    } else if (leafNode !== undefined && isMember(leafNode)) return -1
  }
  return own
}

/**
 * {@link ownLeafEntry} for a write that changes only the leaf `field` of the items `items` (their keys, `k:{…}`) of the
 * keyed list `list` under `parent` (a node's heartbeat: every condition's `f:lastHeartbeatTime` under `f:status`
 * `f:conditions`, simulator/apiserver/NodeHeartbeat.ts): the index of `manager`'s own Update entry when every entry
 * was built here, exactly one of them is this manager's, its set holds each item's leaf and no other entry's set holds
 * any of them, as `ManagedFields.refreshedOwnEntry` finds it; -1 otherwise.
 */
export const ownItemLeavesEntry = (
  entries: ReadonlyArray<ManagedFieldsEntry>,
  manager: string,
  scope: WriteScope,
  parent: string,
  list: string,
  items: ReadonlyArray<string>,
  field: string
): number => {
  let own = -1
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!
    if (!isBuilt(e)) return -1
    const under = e.fieldsV1[parent]?.[list]
    if (isOwn(e, manager, "Update", scope)) {
      if (own >= 0 || under === undefined) return -1
      for (let j = 0; j < items.length; j++) {
        const leafNode = under[items[j]!]?.[field]
        if (leafNode === undefined || !isMember(leafNode)) return -1
      }
      own = i
    } else if (under !== undefined) {
      for (let j = 0; j < items.length; j++) {
        const leafNode = under[items[j]!]?.[field]
        if (leafNode !== undefined && isMember(leafNode)) return -1
      }
    }
  }
  return own
}

/**
 * `entries` with the own entry at `own` (see {@link ownLeafEntry}, {@link ownItemLeavesEntry}) taking the time `at`, as `afterUpdate` leaves them
 * after such a write: `entries` itself when the time is the same; undefined when the result would be capped
 * (more than ten Update managers: the general path merges them).
 */
export const withOwnEntryTime = (entries: ReadonlyArray<ManagedFieldsEntry>, own: number, scope: WriteScope, at: string): ReadonlyArray<ManagedFieldsEntry> | undefined => {
  const mine = entries[own]!
  let next = entries
  if (at !== mine.time) {
    const copy = entries.slice()
    copy[own] = entry(mine.manager ?? "", "Update", scope.apiVersion, scope.subresource, at, mine.fieldsV1)
    sortInOrder(copy)
    next = copy
  }
  return capUpdateManagers(next) === next ? next : undefined
}

/**
 * `withOwnEntryTime(entries, 0, scope, at)` of entries that are `manager`'s own Update entry alone, with the field
 * set `fields`, timed other than `at`: a lease renewal over a renewal's version (simulator/apiserver/RenewedVersion.ts
 * `ownFields`) makes its entries from what the renewal remembered, without reading the stored list and entry — cold
 * objects of one of 5,000 leases, each touched once per 10 s (docs/benchmarks.md "Where a lease renewal's CPU goes").
 */
export const ownEntryAlone = (manager: string, scope: WriteScope, at: string, fields: FieldTree): ReadonlyArray<ManagedFieldsEntry> => [
  entry(manager, "Update", scope.apiVersion, scope.subresource, at, fields)
]
