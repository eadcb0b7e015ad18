/**
 * `metadata.managedFields` as the 1.26 API server keeps them (reference §5.4; `kubernetes/apiserver:
 * pkg/endpoints/handlers/fieldmanager`, `structured-merge-diff` `merge.Updater`):
 * - an Update (create, update, patch) gives its manager the fields it added or changed, and takes them from
 *   the other managers; removed fields leave every manager;
 * - an Apply makes the manager own exactly the applied fields; fields it applied before and no longer applies
 *   are removed unless another manager owns them; changing a field another manager owns is a conflict (409,
 *   reference §5.6) unless forced, which moves the ownership.
 * Entries are identified by manager, operation, subresource and (for Update) apiVersion; an entry's time changes
 * only when its fields do. Identity fields (name, uid, resourceVersion, …) are owned by nobody, and the main
 * resource and the status subresource own only their own halves of kinds with a status subresource. An Update
 * leaves at most ten Update entries ({@link capUpdateManagers}).
 *
 * Pure: times are passed in.
 */
import { Either } from "effect"
import type { FieldSchema } from "../kinds/FieldSchema.js"
import { isRecord, type KObject } from "../Object.js"
import { ApiError, makeStatus } from "../Status.js"
import { contains, difference, emptySet, equalSets, type FieldTree, fieldTreeOf, intersection, isEmpty, memberPaths, union } from "./FieldSet.js"
import { typedPatchError } from "./TypedConversion.js"
import { compare, fieldSetOf, mergeConfig, removeFields } from "./TypedFields.js"
import { capUpdateManagers } from "./UpdateManagerCap.js"

export interface ManagedFieldsEntry {
  /** Omitted when empty (`omitempty`): a manager without a name or User-Agent. */
  readonly manager?: string
  readonly operation: "Apply" | "Update"
  readonly apiVersion: string
  readonly time: string
  readonly fieldsType: "FieldsV1"
  readonly fieldsV1: FieldTree
  readonly subresource?: string
}

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

/** The part of a field set a write in this scope may own. */
const ownable = (set: FieldTree, scope: WriteScope): FieldTree => {
  const stripped = difference(set, identityFields)
  if (!scope.hasStatus) return stripped
  if (scope.subresource === "status") return stripped["f:status"] === undefined ? emptySet : { "f:status": stripped["f:status"] }
  if (stripped["f:status"] === undefined) return stripped
  const { "f:status": _s, ...rest } = stripped
  return rest
}

type Identity = Pick<ManagedFieldsEntry, "manager" | "operation" | "apiVersion" | "subresource">

const identityKey = (e: Identity): string => JSON.stringify([e.manager ?? "", e.operation, e.operation === "Apply" ? "" : e.apiVersion, e.subresource ?? ""])

/** Identities of stored entries, kept per entry object: an object's entries are compared on every write to it. */
const storedIdentities = new WeakMap<Identity, string>()

const identityOf = (e: Identity): string => {
  let id = storedIdentities.get(e)
  if (id === undefined) storedIdentities.set(e, (id = identityKey(e)))
  return id
}

/** The entries an object carries (malformed ones dropped). */
export const entriesOf = (obj: KObject | undefined): ReadonlyArray<ManagedFieldsEntry> => {
  const raw = obj?.metadata.managedFields
  if (!Array.isArray(raw)) return []
  const valid = (e: unknown): e is ManagedFieldsEntry => isRecord(e) && (e.manager === undefined || typeof e.manager === "string") && (e.operation === "Apply" || e.operation === "Update")
  // The array itself when every entry is well-formed: an unchanged object keeps its managedFields.
  return raw.every(valid) ? (raw as ReadonlyArray<ManagedFieldsEntry>) : raw.filter(valid)
}

/** `sortEncodedManagedFields`: Apply before Update, then by time, manager, apiVersion, subresource. */
const sorted = (entries: ManagedFieldsEntry[]): ManagedFieldsEntry[] =>
  entries.sort((p, q) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1
    if (p.time !== q.time) return p.time < q.time ? -1 : 1
    if ((p.manager ?? "") !== (q.manager ?? "")) return (p.manager ?? "") < (q.manager ?? "") ? -1 : 1
    if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1
    return (p.subresource ?? "") < (q.subresource ?? "") ? -1 : (p.subresource ?? "") > (q.subresource ?? "") ? 1 : 0
  })

/** Built from two literals, no spreads: every pod's entries are made here, and spread copies get hidden classes of their own. */
const entry = (manager: string, operation: "Apply" | "Update", scope: WriteScope, time: string, fields: FieldTree): ManagedFieldsEntry => {
  const apiVersion = scope.apiVersion
  const e: { -readonly [K in keyof ManagedFieldsEntry]: ManagedFieldsEntry[K] } =
    manager === ""
      ? { operation, apiVersion, time, fieldsType: "FieldsV1", fieldsV1: fields }
      : { manager, operation, apiVersion, time, fieldsType: "FieldsV1", fieldsV1: fields }
  if (scope.subresource) e.subresource = scope.subresource
  return e
}

/**
 * What a create is compared with: the kind's zero value, in which `metadata` and the `spec`/`status` structs exist
 * (empty) while maps, lists and pointers are absent, so a create owns `f:data` as a whole but not `f:spec`.
 */
const zeroObject = (schema: FieldSchema | undefined): KObject => {
  const zero: Record<string, unknown> = { metadata: {} }
  if (schema?.type === "object") for (const k of ["spec", "status"]) if (schema.fields[k]?.type === "object") zero[k] = {}
  return zero as KObject
}

/**
 * Other managers after a change: they lose the fields it changed (forced) and the fields it removed. The same
 * array when nobody lost anything.
 */
const withoutChanged = (entries: ReadonlyArray<ManagedFieldsEntry>, self: string, taken: FieldTree, removed: FieldTree): ManagedFieldsEntry[] => {
  const out: ManagedFieldsEntry[] = []
  for (const e of entries) {
    if (identityOf(e) === self) continue
    const set = fieldTreeOf(e.fieldsV1)
    const left = isEmpty(intersection(set, taken)) && isEmpty(intersection(set, removed)) ? set : difference(difference(set, taken), removed)
    if (isEmpty(left)) continue
    out.push(left === set ? e : { ...e, fieldsV1: left })
  }
  return out
}

/**
 * The managed fields after an Update by `manager` from `before` (undefined for a create) to `after`. The entries
 * are taken from `after` when it carries some (a client may write them), else from `before`. Returns the given
 * array itself when nothing changed, so a no-op write stays a no-op.
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
  return capped === entries ? entries : sorted([...capped])
}

const updatedEntries = (
  before: KObject | undefined,
  after: KObject,
  manager: string,
  scope: WriteScope,
  /** Asked only when an entry changes (formatting a time on every write costs). */
  time: () => string
): ReadonlyArray<ManagedFieldsEntry> => {
  const sent = scope.subresource === undefined ? entriesOf(after) : []
  const entries = sent.length > 0 ? sent : entriesOf(before)
  const changes = compare(before ?? zeroObject(scope.schema), after, scope.schema)
  const added = ownable(changes.added, scope)
  const modified = ownable(changes.modified, scope)
  const removed = ownable(changes.removed, scope)
  if (isEmpty(added) && isEmpty(modified) && isEmpty(removed)) return entries
  const self = identityKey({ manager, operation: "Update", apiVersion: scope.apiVersion, subresource: scope.subresource })
  const own = entries.find((e) => identityOf(e) === self)
  const ownSet = own === undefined ? emptySet : fieldTreeOf(own.fieldsV1)
  // The common case (a manager rewriting fields it owns, as lease renewals do) is answered without building sets.
  const ownUnchanged = own !== undefined && isEmpty(added) && contains(ownSet, modified) && isEmpty(intersection(ownSet, removed))
  const next = ownUnchanged ? ownSet : difference(union(union(ownSet, modified), added), removed)
  const others = withoutChanged(entries, self, union(modified, added), removed)
  const mine = isEmpty(next) ? [] : [ownUnchanged ? own : entry(manager, "Update", scope, time(), next)]
  const result = [...others, ...mine]
  // Nobody's fields changed (a manager rewriting fields it owns): the entries stay as they were.
  if (result.length === entries.length && result.every((e) => entries.includes(e))) return entries
  return sorted(result)
}

/** A field another manager owns and the apply would change. */
interface Conflict {
  readonly manager: ManagedFieldsEntry
  readonly path: string
}

/** `printManager`: the quoted name, the subresource, and for Update managers the version they used. */
const printManager = (e: ManagedFieldsEntry): string => {
  const name = `${JSON.stringify(e.manager ?? "")}${e.subresource ? ` with subresource ${JSON.stringify(e.subresource)}` : ""}`
  return e.operation === "Update" ? `${name} using ${e.apiVersion}` : name
}

/** 409 Conflict with the reference's texts (§5.6); `details` holds only the causes. */
export const conflictError = (conflicts: ReadonlyArray<Conflict>): ApiError => {
  const causes = conflicts.map((c) => ({ reason: "FieldManagerConflict", message: `conflict with ${printManager(c.manager)}`, field: c.path }))
  let message: string
  if (conflicts.length === 1) message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0]!.manager)}: ${conflicts[0]!.path}`
  else {
    const byManager = new Map<string, { entry: ManagedFieldsEntry; paths: string[] }>()
    for (const c of conflicts) {
      const key = identityOf(c.manager)
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
  const self = identityKey({ manager, operation: "Apply", apiVersion: scope.apiVersion, subresource: scope.subresource })
  const previous = entries.find((e) => identityOf(e) === self)
  const applied = ownable(fieldSetOf(config, scope.schema), scope)
  const base: KObject = live ?? ({ metadata: {} } as KObject)
  let merged = mergeConfig(base, config, scope.schema) as KObject
  // Fields this manager applied before and no longer applies go, unless another manager keeps them.
  if (previous !== undefined) {
    let kept = applied
    for (const e of entries) if (identityOf(e) !== self) kept = union(kept, fieldTreeOf(e.fieldsV1))
    const dropped = difference(fieldTreeOf(previous.fieldsV1), kept)
    if (!isEmpty(dropped)) merged = removeFields(merged, dropped, scope.schema) as KObject
  }
  const changes = compare(base, merged, scope.schema)
  const changed = union(ownable(changes.modified, scope), ownable(changes.added, scope))
  const removed = ownable(changes.removed, scope)
  const conflicts: Conflict[] = []
  for (const e of entries) {
    if (identityOf(e) === self) continue
    for (const path of memberPaths(intersection(fieldTreeOf(e.fieldsV1), changed))) conflicts.push({ manager: e, path })
  }
  if (conflicts.length > 0 && !force) return Either.left(conflictError(conflicts))
  const others = withoutChanged(entries, self, changed, removed)
  const mine = isEmpty(applied)
    ? []
    : [previous !== undefined && equalSets(applied, fieldTreeOf(previous.fieldsV1)) ? previous : entry(manager, "Apply", scope, time, applied)]
  return Either.right({ object: merged, managedFields: sorted([...others, ...mine]) })
}
