/**
 * At most ten Update managers per object, as the 1.26 API server keeps them (`kubernetes/apiserver:
 * pkg/endpoints/handlers/fieldmanager/internal/capmanagers.go`, `DefaultMaxUpdateManagers`): after an Update with
 * more, the oldest Update entries are merged, per apiVersion, into one `ancient-changes` entry until ten are left.
 * Apply entries are never merged; an object with many controllers writing it keeps bounded managedFields.
 *
 * Pure.
 */
import { union, fieldTreeOf, type ManagedFieldsEntry } from "./FieldSet.js"

export const maxUpdateManagers = 10
/** `oldUpdatesManagerName` */
export const ancientChangesManager = "ancient-changes"

/**
 * `BuildManagerIdentifier`: the entry's JSON without time and fields (apiVersion only for Update), the string
 * upstream keys and sorts managers by.
 */
const identifier = (e: Pick<ManagedFieldsEntry, "manager" | "operation" | "apiVersion" | "subresource">): string =>
  JSON.stringify({
    manager: e.manager || undefined,
    operation: e.operation,
    apiVersion: e.operation === "Update" ? e.apiVersion || undefined : undefined,
    subresource: e.subresource || undefined
  })

/** Oldest first by whole seconds (the entries' RFC3339 times), then by identifier. */
const oldestFirst = (p: ManagedFieldsEntry, q: ManagedFieldsEntry): number => {
  const pt = p.time ?? ""
  const qt = q.time ?? ""
  if (pt !== qt) return pt < qt ? -1 : 1
  const pi = identifier(p)
  const qi = identifier(q)
  return pi < qi ? -1 : pi > qi ? 1 : 0
}

/** `capUpdateManagers`: the entries themselves when at most ten are Updates, else with the oldest merged. */
export const capUpdateManagers = (entries: ReadonlyArray<ManagedFieldsEntry>): ReadonlyArray<ManagedFieldsEntry> => {
  let updates = 0
  for (const e of entries) if (e.operation === "Update") updates++
  if (updates <= maxUpdateManagers) return entries

  const byIdentifier = new Map<string, ManagedFieldsEntry>(entries.map((e) => [identifier(e), e]))
  const updaters = entries.filter((e) => e.operation === "Update").sort(oldestFirst)
  // The first (oldest) entry seen of each version is kept as it is until a second one of that version is merged.
  const firstOfVersion = new Map<string, string>()
  for (let i = 0, length = updaters.length; i < updaters.length && length > maxUpdateManagers; i++) {
    const merged = updaters[i]!
    const bucket = { manager: ancientChangesManager, operation: "Update" as const, apiVersion: merged.apiVersion }
    const bucketId = identifier(bucket)
    const first = firstOfVersion.get(merged.apiVersion)
    if (first === undefined) {
      firstOfVersion.set(merged.apiVersion, identifier(merged))
      continue
    }
    // The first of the version becomes the bucket (unless an earlier cap left one).
    if (!byIdentifier.has(bucketId)) {
      byIdentifier.set(bucketId, byIdentifier.get(first)!)
      byIdentifier.delete(first)
    }
    const fields = union(fieldTreeOf(byIdentifier.get(bucketId)!.fieldsV1), fieldTreeOf(merged.fieldsV1))
    // The bucket takes the time of the update merged into it, the more recent one.
    byIdentifier.set(bucketId, { ...bucket, time: merged.time, fieldsType: "FieldsV1", fieldsV1: fields })
    byIdentifier.delete(identifier(merged))
    length--
  }
  return [...byIdentifier.values()]
}
