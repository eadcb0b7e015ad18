/**
 * `metadata.managedFields` as the 1.26 API server keeps them (`kubernetes/apiserver:
 * pkg/endpoints/handlers/fieldmanager`, `structured-merge-diff` `merge.Updater`):
 * - an Update (create, update, patch) gives its manager the fields it added or changed, and takes them from
 *   the other managers; removed fields leave every manager;
 * - an Apply makes the manager own exactly the applied fields; fields it applied before and no longer applies
 *   are removed unless another manager owns them; changing a field another manager owns is a conflict (409,
 *   `merge.Conflicts`) unless forced, which moves the ownership.
 * Entries are identified by manager, operation, subresource and (for Update) apiVersion; an Update entry's time
 * is that of its manager's last write that changed a field (`afterUpdate`), an Apply entry's that of the last
 * apply that changed its field set. Identity fields (name, uid, resourceVersion, …) are owned by nobody, and the main
 * resource and the status subresource own only their own halves of kinds with a status subresource. An Update
 * leaves at most ten Update entries ({@link capUpdateManagers}).
 *
 * Pure: times are passed in.
 */
import { Either } from "effect"
import { goQuote } from "../go/Quote.js"
import type { FieldSchema } from "../kinds/FieldSchema.js"
import { InternTable } from "../internal/InternTable.js"
import { LastCalls } from "../internal/LastCall.js"
import { isRecord, type KObject } from "../Object.js"
import { ApiError, makeStatus } from "../Status.js"
import { contains, difference, emptySet, equalSets, type FieldTree, fieldTreeOf, type ManagedFieldsEntry, identicalTrees, intersection, intersects, isEmpty, memberPaths, union, without } from "./FieldSet.js"
import { typedPatchError } from "./TypedConversion.js"
import { changeExtent, compare, type Comparison, fieldSetOf, mergeConfig, removeFields } from "./TypedFields.js"
import { capUpdateManagers } from "./UpdateManagerCap.js"

export type { ManagedFieldsEntry } from "./FieldSet.js"

/** Where a write lands: the kind's schema and version, and which half of the object the write may own. */
export interface WriteScope {
  readonly schema: FieldSchema | undefined
  readonly apiVersion: string
  readonly subresource: string | undefined
  /** The kind has a status subresource: its main resource does not own `status`, and `status` owns only that. */
  readonly hasStatus: boolean
}

const leaf = emptySet
/** `stripMeta`: fields no manager owns. */
const identityFields: FieldTree = {
  "f:apiVersion": leaf,
  "f:kind": leaf,
  "f:metadata": {
    "f:name": leaf,
    "f:namespace": leaf,
    "f:creationTimestamp": leaf,
    "f:selfLink": leaf,
    "f:uid": leaf,
    "f:generation": leaf,
    "f:managedFields": leaf,
    "f:resourceVersion": leaf,
    "f:deletionTimestamp": leaf,
    "f:deletionGracePeriodSeconds": leaf
  }
}

/** What a write in the main resource of a kind with a status subresource does not own. */
const identityAndStatus: FieldTree = { ...identityFields, "f:status": leaf }

/** The part of a field set a write in this scope may own. */
const ownable = (set: FieldTree, scope: WriteScope): FieldTree => {
  const stripped = difference(set, identityFields)
  if (!scope.hasStatus) return stripped
  if (scope.subresource === "status") return stripped["f:status"] === undefined ? emptySet : { "f:status": stripped["f:status"] }
  if (stripped["f:status"] === undefined) return stripped
  return without(stripped, "f:status")
}

type Identity = Pick<ManagedFieldsEntry, "manager" | "operation" | "apiVersion" | "subresource">

const identityKey = (e: Identity): string => JSON.stringify([e.manager ?? "", e.operation, e.operation === "Apply" ? "" : e.apiVersion, e.subresource ?? ""])

/** Whether `e` is the entry of this manager's writes in `scope` (`identityKey` without building the key). */
export const isOwn = (e: ManagedFieldsEntry, manager: string, operation: "Apply" | "Update", scope: WriteScope): boolean =>
  (e.manager ?? "") === manager &&
  e.operation === operation &&
  (operation === "Apply" || e.apiVersion === scope.apiVersion) &&
  (e.subresource ?? "") === (scope.subresource ?? "")

const isEntry = (e: unknown): e is ManagedFieldsEntry =>
  isRecord(e) && (e.manager === undefined || typeof e.manager === "string") && (e.operation === "Apply" || e.operation === "Update")

const noEntries: ReadonlyArray<ManagedFieldsEntry> = Object.freeze([])
const noSets: ReadonlyArray<FieldTree> = Object.freeze([])

/**
 * An entry built here. Its field set is well-formed, so the next write to the object reads it without checking
 * (walking a set costs ~30 ns a node, and every lease renewal reads its object's entries); an entry from anywhere
 * else (a client's copy, a decoded body) is a plain object and is checked. Known by its class rather than by a mark
 * on its array: defining a hidden property on every stored version's array cost ~130 ns a write. Own properties
 * only, in upstream's field order, so JSON, equality and copies see a plain entry.
 */
class BuiltEntry implements ManagedFieldsEntry {
  // All `declare`d: class fields would be defined before the constructor runs, in another order.
  declare readonly manager?: string
  declare readonly operation: "Apply" | "Update"
  declare readonly apiVersion: string
  declare readonly time: string
  declare readonly fieldsType: "FieldsV1"
  declare readonly fieldsV1: FieldTree
  declare readonly subresource?: string

  constructor(manager: string, operation: "Apply" | "Update", apiVersion: string, subresource: string | undefined, time: string, fields: FieldTree) {
    const self = this as { -readonly [K in keyof ManagedFieldsEntry]: ManagedFieldsEntry[K] }
    if (manager !== "") self.manager = manager
    self.operation = operation
    self.apiVersion = apiVersion
    self.time = time
    self.fieldsType = "FieldsV1"
    self.fieldsV1 = fields
    if (subresource) self.subresource = subresource
  }
}

export const entry = (
  manager: string,
  operation: "Apply" | "Update",
  apiVersion: string,
  subresource: string | undefined,
  time: string,
  fields: FieldTree
): ManagedFieldsEntry => new BuiltEntry(manager, operation, apiVersion, subresource, time, fields)

export const isBuilt = (e: ManagedFieldsEntry): boolean => e instanceof BuiltEntry

/** Every entry was built here: the array is read as it is. */
const isWellFormed = (entries: ReadonlyArray<ManagedFieldsEntry>): boolean => {
  // Indexed loops on this path: `for…of` left an iterator per loop in the 5,000-node hour's allocation profile.
  for (let i = 0; i < entries.length; i++) if (!isBuilt(entries[i]!)) return false
  return true
}

/** The entries an object carries (malformed ones dropped). */
export const entriesOf = (obj: KObject | undefined): ReadonlyArray<ManagedFieldsEntry> => {
  const raw = obj?.metadata.managedFields
  if (!Array.isArray(raw)) return noEntries
  if (isWellFormed(raw as ReadonlyArray<ManagedFieldsEntry>)) return raw as ReadonlyArray<ManagedFieldsEntry>
  // The array itself when every entry is well-formed: an unchanged object keeps its managedFields.
  return raw.every(isEntry) ? (raw as ReadonlyArray<ManagedFieldsEntry>) : raw.filter(isEntry)
}

/** An entry's field set: as it is in an entry built here, else checked (a malformed set counts as empty). */
const setOf = (e: ManagedFieldsEntry): FieldTree => (isBuilt(e) ? e.fieldsV1 : fieldTreeOf(e.fieldsV1))

/** `sortEncodedManagedFields`: Apply before Update, then by time, manager, apiVersion, subresource. */
const order = (p: ManagedFieldsEntry, q: ManagedFieldsEntry): number => {
  if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1
  if (p.time !== q.time) return p.time < q.time ? -1 : 1
  if ((p.manager ?? "") !== (q.manager ?? "")) return (p.manager ?? "") < (q.manager ?? "") ? -1 : 1
  if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1
  return (p.subresource ?? "") < (q.subresource ?? "") ? -1 : (p.subresource ?? "") > (q.subresource ?? "") ? 1 : 0
}

/**
 * `list` sorted by {@link order}, in place: left as it is when it already is (a stable sort would leave it so too). An
 * entry whose time moved on is usually the last already (a node's heartbeat, simulator/apiserver/NodeHeartbeat.ts), and
 * `Array.prototype.sort` with a comparator cost more than the rest of its write's managed fields.
 */
export const sortInOrder = (list: ManagedFieldsEntry[]): void => {
  for (let i = 1; i < list.length; i++) {
    if (order(list[i - 1]!, list[i]!) > 0) {
      list.sort(order)
      return
    }
  }
}

/**
 * Entry lists built by the general path, shared between objects that carry equal ones: 150,000 pods started by
 * their agents in a few hundred distinct seconds would otherwise each keep a list, an entry and a field set of
 * ~30 nodes (~60 MiB live in the 5,000-node hour, docs/benchmarks.md). Shared only when identical (identities,
 * times, and sets with their keys in the same order): the JSON of an object must not change. Lists are never
 * mutated once built.
 */
const sharedLists = new InternTable<ReadonlyArray<ManagedFieldsEntry>>(10_000, (known, list) => {
  for (let i = 0; i < list.length; i++) if (!identicalTrees(known[i]!.fieldsV1, list[i]!.fieldsV1)) return false
  return true
})

/** What an entry list is shared by, besides its field sets: every entry's identity and time. */
const listKey = (list: ReadonlyArray<ManagedFieldsEntry>): string => {
  let key = ""
  for (let i = 0; i < list.length; i++) {
    const e = list[i]!
    key += `${e.manager ?? ""}\u0000${e.operation}\u0000${e.apiVersion}\u0000${e.subresource ?? ""}\u0000${e.time}\u0001`
  }
  return key
}

/**
 * A scope's last shared list (`LastCall.ts`): a write that leaves the same entries as the one before in its scope,
 * their sets the very same trees (every seeded pod's first status patch in one second, `TypedFields.compare`), takes
 * it without making its key.
 */
const lastShared = new LastCalls<ReadonlyArray<ManagedFieldsEntry>>()

/** Entries built here with the same identities, times and set objects: what `sharedLists` shares, by identity. */
const sameEntries = (known: ReadonlyArray<ManagedFieldsEntry>, list: ReadonlyArray<ManagedFieldsEntry>): boolean => {
  if (known.length !== list.length) return false
  for (let i = 0; i < list.length; i++) {
    const k = known[i]!
    const e = list[i]!
    if (
      k !== e &&
      (k.fieldsV1 !== e.fieldsV1 || k.time !== e.time || k.manager !== e.manager || k.operation !== e.operation || k.apiVersion !== e.apiVersion || k.subresource !== e.subresource)
    )
      return false
  }
  return true
}

/** The entries a write leaves. */
class NextEntries {
  readonly list: ManagedFieldsEntry[] = []
  /** Some entry was added, changed or dropped. */
  changed = false

  /** Another manager's entry after a change: it loses the fields `taken` from it and the fields `removed`. */
  keepOther(e: ManagedFieldsEntry, taken: FieldTree, removed: FieldTree): void {
    const set = setOf(e)
    if (!intersects(set, taken) && !intersects(set, removed)) return void this.list.push(e)
    this.changed = true
    const left = difference(difference(set, taken), removed)
    if (!isEmpty(left)) this.list.push(entry(e.manager ?? "", e.operation, e.apiVersion, e.subresource, e.time, left))
  }

  /** The list, sorted and shared (`sharedLists`); `scope`'s last shared list when it holds the same. */
  sorted(scope: WriteScope): ReadonlyArray<ManagedFieldsEntry> {
    // A copy of the exact length: the list grew by pushes, with room for 16 entries, and every stored version of
    // an object keeps its array (~130 bytes each, 150,000 lease versions in the history window).
    const list = this.list.slice()
    if (list.length > 1) list.sort(order)
    if (!isWellFormed(list)) return list
    const last = lastShared.of(scope)
    const known = last.get(scope, scope, undefined)
    if (known !== undefined && sameEntries(known, list)) return known
    return last.set(scope, scope, undefined, sharedLists.intern(listKey(list), list))
  }
}

/**
 * What a create is compared with: the kind's zero value, in which `metadata` and the `spec`/`status` structs exist
 * (empty) while maps, lists and pointers are absent, so a create owns `f:data` as a whole but not `f:spec`.
 */
const zeroObject = (schema: FieldSchema | undefined): KObject => {
  if (schema === undefined) return zeroOfNoSchema
  let zero = zeros.get(schema)
  if (zero === undefined) {
    const made: Record<string, unknown> = { metadata: {} }
    if (schema.type === "object") for (const k of ["spec", "status"]) if (schema.fields[k]?.type === "object") made[k] = {}
    zeros.set(schema, (zero = made as KObject))
  }
  return zero
}

/**
 * One zero value per kind, never changed: a create's parts are compared with the same empty structs, so a part the
 * creates of a kind share (the status of nodes registering together, Registration.ts) is compared once
 * (`TypedFields.compare`'s last comparison).
 */
const zeros = new WeakMap<FieldSchema, KObject>()
const zeroOfNoSchema: KObject = { metadata: {} }

/**
 * The managed fields after an Update by `manager` from `before` (undefined for a create) to `after`. The entries
 * are taken from `after` when it carries some (a client may write them), else from `before`. Returns the given
 * array itself when nothing changed, so a no-op write stays a no-op.
 *
 * As upstream's `managedFieldsUpdater` (1.26): the write's fields are computed for a stand-in manager, so every
 * manager, this one included, loses the fields the write changed or removed; then this manager's entry is its old
 * fields plus the ones it changed, with the time of the write whenever it changed any (a lease renewal refreshes
 * its entry's time); a write that only removed fields leaves the manager's time as it was.
 */
export const afterUpdate = (
  before: KObject | undefined,
  after: KObject,
  manager: string,
  scope: WriteScope,
  /** Asked only when an entry changes (formatting a time on every write costs). */
  time: () => string
): ReadonlyArray<ManagedFieldsEntry> => {
  const entries = updatedEntries(before, after, manager, scope, time)
  const capped = capUpdateManagers(entries)
  return capped === entries ? entries : [...capped].sort(order)
}

const updatedEntries = (
  before: KObject | undefined,
  after: KObject,
  manager: string,
  scope: WriteScope,
  /** Asked only when an entry changes (formatting a time on every write costs). */
  time: () => string
): ReadonlyArray<ManagedFieldsEntry> => {
  const sent = scope.subresource === undefined ? entriesOf(after) : noEntries
  const entries = sent.length > 0 ? sent : entriesOf(before)
  if (before !== undefined && isWellFormed(entries)) {
    const refreshed = refreshedOwnEntry(before, after, manager, scope, entries, time)
    if (refreshed !== undefined) return refreshed
    if (entries.length === 0 && scope.hasStatus && scope.subresource === "status" && isRecord(before.status) && isRecord(after.status))
      return firstStatusEntries(before, after, manager, scope, time, entries)
  }
  return comparedEntries(before, after, manager, scope, time, entries)
}

/** `updatedEntries` by comparing the objects: the general path. */
const comparedEntries = (
  before: KObject | undefined,
  after: KObject,
  manager: string,
  scope: WriteScope,
  time: () => string,
  entries: ReadonlyArray<ManagedFieldsEntry>
): ReadonlyArray<ManagedFieldsEntry> => {
  const { changed, removed } = ownedChanges(compare(before ?? zeroObject(scope.schema), after, scope.schema), scope)
  if (isEmpty(changed) && isEmpty(removed)) return entries
  const next = new NextEntries()
  let previous: ManagedFieldsEntry | undefined
  for (const e of entries) {
    if (!isOwn(e, manager, "Update", scope)) next.keepOther(e, changed, removed)
    else if (previous === undefined) previous = e
    else next.changed = true
  }
  const had = previous === undefined ? emptySet : setOf(previous)
  // (had − changed − removed) ∪ changed; `had` itself when that is what it already holds.
  const fields = contains(had, changed) && !intersects(had, removed) ? had : union(difference(had, removed), changed)
  if (!isEmpty(fields)) {
    const at = isEmpty(changed) ? previous!.time : time()
    const mine = previous !== undefined && fields === had && at === previous.time ? previous : entry(manager, "Update", scope.apiVersion, scope.subresource, at, fields)
    if (mine !== previous) next.changed = true
    next.list.push(mine)
  } else if (previous !== undefined) next.changed = true
  return next.changed ? next.sorted(scope) : entries
}

/**
 * A status write to an object no manager owns anything of yet — every pod's first status PATCH by its node agent,
 * 150,000 of them in the 5,000-node hour's first minutes (docs/cluster.md "The pod-start storm's status patches") —
 * remembered by the statuses it went from and to (`LastCall.ts`): the pods an agent starts in one second go from one
 * shared Pending status to one shared Running status (`Patch.ts` `mergedPart`), so the comparison, its field set and
 * the entry list are the same, but for the time. `comparedEntries` with no entries in the status scope owns only
 * `f:status`, which the two statuses decide, and gives either no change (the entries as they are) or one entry of this
 * manager with the changed fields at the write's time; a later write of the same statuses takes that set again, at
 * its own time (test/api/apply/FirstStatusEntry.test.ts compares the two paths).
 */
const firstStatusEntries = (
  before: KObject,
  after: KObject,
  manager: string,
  scope: WriteScope,
  time: () => string,
  entries: ReadonlyArray<ManagedFieldsEntry>
): ReadonlyArray<ManagedFieldsEntry> => {
  const slot = lastFirstStatus.of(scope)
  const known = slot.get(before.status as object, after.status as object, manager)
  if (known === undefined) {
    const made = comparedEntries(before, after, manager, scope, time, entries)
    slot.set(before.status as object, after.status as object, manager, made === entries ? unchangedEntries : made)
    return made
  }
  if (known === unchangedEntries) return entries
  const at = time()
  const mine = known[0]!
  if (at === mine.time) return known
  const next = new NextEntries()
  next.list.push(entry(manager, "Update", scope.apiVersion, scope.subresource, at, mine.fieldsV1))
  return slot.set(before.status as object, after.status as object, manager, next.sorted(scope))
}

/** A status scope's last first status write (`firstStatusEntries`). */
const lastFirstStatus = new LastCalls<ReadonlyArray<ManagedFieldsEntry>>()
/** What `lastFirstStatus` keeps for a write that changed no entry: that write's own entries are given back. */
const unchangedEntries: ReadonlyArray<ManagedFieldsEntry> = Object.freeze([])

/** What a write changed or removed in the part of the object it may own. */
interface OwnedChanges {
  readonly changed: FieldTree
  readonly removed: FieldTree
}

/**
 * `changes` in `scope`: worked out again only for another comparison than the last (`TypedFields.compare` gives the
 * same result again for the same differences: every seeded pod's first status patch in one second, `LastCall.ts`).
 */
const lastOwned = new LastCalls<OwnedChanges>()
const ownedChanges = (changes: Comparison, scope: WriteScope): OwnedChanges => {
  const slot = lastOwned.of(scope)
  return (
    slot.get(changes, scope, undefined) ??
    slot.set(changes, scope, undefined, { changed: union(ownable(changes.modified, scope), ownable(changes.added, scope)), removed: ownable(changes.removed, scope) })
  )
}

/**
 * The common Update, decided without building a field set: a manager that changes only fields it alone owns (a
 * lease renewal, a node's heartbeat) leaves every set as it was, and its entry takes the time of the write. The
 * same entries as the general path gives; undefined when the write does anything else.
 */
const refreshedOwnEntry = (
  before: KObject,
  after: KObject,
  manager: string,
  scope: WriteScope,
  entries: ReadonlyArray<ManagedFieldsEntry>,
  time: () => string
): ReadonlyArray<ManagedFieldsEntry> | undefined => {
  let own: ManagedFieldsEntry | undefined
  let othersSets: FieldTree[] | undefined
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!
    if (!isOwn(e, manager, "Update", scope)) (othersSets ??= []).push(e.fieldsV1)
    else if (own === undefined) own = e
    else return undefined
  }
  if (own === undefined) return undefined
  const others = othersSets ?? noSets
  const extent = !scope.hasStatus
    ? changeExtent(before, after, scope.schema, own.fieldsV1, others, identityFields)
    : scope.subresource === "status"
      ? changeExtent({ status: before.status }, { status: after.status }, scope.schema, own.fieldsV1, others, undefined)
      : changeExtent(before, after, scope.schema, own.fieldsV1, others, identityAndStatus)
  if (extent === "other") return undefined
  if (extent === "none") return entries
  const at = time()
  if (at === own.time) return entries
  const mine = entry(manager, "Update", scope.apiVersion, scope.subresource, at, own.fieldsV1)
  // A copy of the exact length with `own` replaced, not pushes into `[]` (room for 16 entries, kept by every
  // stored lease version in the history window) nor `entries.map((e) => …)` (a closure over `own` and `mine`
  // costs every call a context).
  const next = entries.slice()
  next[next.indexOf(own)] = mine
  sortInOrder(next)
  return next
}

/** A field another manager owns and the apply would change. */
interface Conflict {
  readonly manager: ManagedFieldsEntry
  readonly path: string
}

/** `printManager`: the quoted name, the subresource, and for Update managers the version they used. */
const printManager = (e: ManagedFieldsEntry): string => {
  const name = `${goQuote(e.manager ?? "")}${e.subresource ? ` with subresource ${goQuote(e.subresource)}` : ""}`
  return e.operation === "Update" ? `${name} using ${e.apiVersion}` : name
}

/** 409 Conflict with upstream's texts (`fieldmanager` `NewConflictError`); `details` holds only the causes. */
export const conflictError = (conflicts: ReadonlyArray<Conflict>): ApiError => {
  const causes = conflicts.map((c) => ({ reason: "FieldManagerConflict", message: `conflict with ${printManager(c.manager)}`, field: c.path }))
  let message: string
  if (conflicts.length === 1) message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0]!.manager)}: ${conflicts[0]!.path}`
  else {
    const byManager = new Map<string, { entry: ManagedFieldsEntry; paths: string[] }>()
    for (const c of conflicts) {
      const key = identityKey(c.manager)
      const group = byManager.get(key) ?? { entry: c.manager, paths: [] }
      group.paths.push(c.path)
      byManager.set(key, group)
    }
    const lines: string[] = []
    for (const key of [...byManager.keys()].sort()) {
      const group = byManager.get(key)!
      lines.push(`conflicts with ${printManager(group.entry)}:`, ...group.paths.map((p) => `- ${p}`))
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`
  }
  return new ApiError({ status: makeStatus({ code: 409, reason: "Conflict", message, details: { causes } }) })
}

/**
 * An Apply by `manager` of `config` onto `live` (undefined when the apply creates): the merged object and its
 * managed fields, or the conflicts as a 409 when not forced (a configuration that cannot be typed is a 500 first).
 */
export const applyConfig = (
  live: KObject | undefined,
  config: KObject,
  manager: string,
  force: boolean,
  scope: WriteScope,
  time: string
): Either.Either<{ readonly object: KObject; readonly managedFields: ReadonlyArray<ManagedFieldsEntry> }, ApiError> => {
  const untyped = typedPatchError(config, scope.schema)
  if (untyped !== undefined) return Either.left(untyped)
  const entries = entriesOf(live)
  const previous = entries.find((e) => isOwn(e, manager, "Apply", scope))
  const applied = ownable(fieldSetOf(config, scope.schema), scope)
  const base: KObject = live ?? ({ metadata: {} } as KObject)
  let merged = mergeConfig(base, config, scope.schema) as KObject
  // Fields this manager applied before and no longer applies go, unless another manager keeps them.
  if (previous !== undefined) {
    let kept = applied
    for (const e of entries) if (!isOwn(e, manager, "Apply", scope)) kept = union(kept, setOf(e))
    const dropped = difference(setOf(previous), kept)
    if (!isEmpty(dropped)) merged = removeFields(merged, dropped, scope.schema) as KObject
  }
  const changes = compare(base, merged, scope.schema)
  const changed = union(ownable(changes.modified, scope), ownable(changes.added, scope))
  const removed = ownable(changes.removed, scope)
  const conflicts: Conflict[] = []
  for (const e of entries) {
    if (isOwn(e, manager, "Apply", scope)) continue
    for (const path of memberPaths(intersection(setOf(e), changed))) conflicts.push({ manager: e, path })
  }
  if (conflicts.length > 0 && !force) return Either.left(conflictError(conflicts))
  const next = new NextEntries()
  for (const e of entries) if (!isOwn(e, manager, "Apply", scope)) next.keepOther(e, changed, removed)
  if (!isEmpty(applied))
    next.list.push(
      previous !== undefined && equalSets(applied, setOf(previous)) ? previous : entry(manager, "Apply", scope.apiVersion, scope.subresource, time, applied)
    )
  return Either.right({ object: merged, managedFields: next.sorted(scope) })
}
