/**
 * delete and deletecollection (upstream "Finalizers", "Garbage collection"): preconditions, finalizers and two-phase deletion, propagation
 * policies with a minimal garbage-collection step, and the contents of a deleted namespace. Every delete comes in
 * through `Admission`.
 */
import { Effect, Either } from "effect"
import { isRecord, type KList, type KObject } from "../../src/api/Object.js"
import { extendable } from "../../src/api/internal/V8Shapes.js"
import type { DeleteOptions, DeleteResult, ListOptions } from "../../src/api/Requests.js"
import { initialNamespaces, Namespaces, resourceTypes, type ResourceType } from "../../src/api/Resources.js"
import * as Status from "../../src/api/Status.js"
import type { ApiError } from "../../src/api/Status.js"
import type { Admission } from "./Admission.js"
import { checkDeleteOptions, isDryRun } from "./Decode.js"
import { selectorsOf } from "./Read.js"
import type { ServerState } from "./ServerState.js"
import { everything, keyPrefix, objectKey } from "./Store.js"
import { rfc3339 } from "./SystemMeta.js"
import { listOf, stripTypeMeta } from "./TypeMeta.js"
import { withTypeMeta } from "./WatchHub.js"

export class Delete {
  constructor(
    private readonly state: ServerState,
    private readonly admission: Admission
  ) {}

  delete(resource: ResourceType, name: string, opts: DeleteOptions = {}): Effect.Effect<DeleteResult, ApiError> {
    return this.admission.admitted((now) => this.deleteAt(resource, name, opts, now))
  }

  /** `delete` at a given time, synchronously: the request path for in-process callers that keep their own clock. */
  deleteAt(resource: ResourceType, name: string, opts: DeleteOptions, now: number): Either.Either<DeleteResult, ApiError> {
    return Either.gen(this, function* () {
      const bad = checkDeleteOptions(opts)
      if (bad) return yield* Either.left(bad)
      const entry = this.state.find(resource, opts.namespace, name)
      if (!entry) return yield* Either.left(Status.notFound(resource, name))
      const stored = entry.obj
      const pre = opts.preconditions
      if (pre?.uid && pre.uid !== stored.metadata.uid)
        return yield* Either.left(preconditionConflict(resource, name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${stored.metadata.uid}). The object might have been deleted and then recreated`))
      if (pre?.resourceVersion && pre.resourceVersion !== stored.metadata.resourceVersion)
        return yield* Either.left(preconditionConflict(resource, name, `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${stored.metadata.resourceVersion}). The object might have been modified`))
      if (resource === Namespaces && initialNamespaces.includes(name) && name !== "platform-public" && name !== "platform-node-lease")
        return yield* Either.left(forbiddenNamespaceDelete(name))
      return this.deleteObject(resource, entry.key, stored, opts, now)
    })
  }

  deleteCollection(resource: ResourceType, opts: ListOptions & DeleteOptions = {}): Effect.Effect<KList, ApiError> {
    return Effect.gen(this, function* () {
      const now = yield* this.admission.admit
      if (resource === Namespaces) return yield* Effect.fail(Status.methodNotAllowed())
      const bad = checkDeleteOptions(opts)
      if (bad) return yield* Effect.fail(bad)
      const { matches } = yield* selectorsOf(resource, opts)
      const { store } = this.state
      const prefix = keyPrefix(resource.namespaced ? opts.namespace : undefined)
      const revision = store.revision
      const page = store.page({ resource, revision, prefix, start: prefix, limit: undefined, matches, countRemaining: false })
      for (const obj of page.items) {
        const key = this.state.key(resource, obj.metadata.namespace, obj.metadata.name!)
        const current = store.get(resource, key)
        if (current) this.deleteObject(resource, key, current, opts, now)
      }
      return listOf(resource, page.items.map(stripTypeMeta), { resourceVersion: String(revision) })
    })
  }

  /** Removes the object, or marks it terminating while finalizers remain (two-phase deletion). */
  private deleteObject(resource: ResourceType, key: string, stored: KObject, opts: DeleteOptions, now: number): DeleteResult {
    const dryRun = isDryRun(opts.dryRun)
    const terminating = stored.metadata.deletionTimestamp !== undefined
    if (terminating) return { code: 200, object: withTypeMeta(stored, resource) }
    const finalizers = [...(stored.metadata.finalizers ?? [])]
    if (resource.garbageCollected) {
      const policy = opts.propagationPolicy ?? (opts.orphanDependents === true ? "Orphan" : undefined)
      if (policy === "Orphan" && !finalizers.includes("orphan")) finalizers.push("orphan")
      if (policy === "Foreground" && !finalizers.includes("foregroundDeletion")) finalizers.push("foregroundDeletion")
    }
    const store = this.state.store
    if (resource === Namespaces && !dryRun) return this.deleteNamespace(key, stored, finalizers, now)
    if (finalizers.length === 0) {
      if (!dryRun) {
        if (resource === Namespaces) this.removeNamespaceContents(stored.metadata.name!, now)
        store.remove(resource, key, now)
      }
      return { code: 200, status: Status.deleteSuccess(resource, stored.metadata.name!, stored.metadata.uid ?? "") }
    }
    const generation = stored.metadata.generation
    const marked: KObject = {
      ...stored,
      metadata: {
        ...stored.metadata,
        ...(generation !== undefined && generation > 0 ? { generation: generation + 1 } : {}),
        deletionTimestamp: rfc3339(now),
        deletionGracePeriodSeconds: 0,
        finalizers
      }
    }
    if (dryRun) return { code: 200, object: withTypeMeta(marked, resource) }
    const saved = store.put(resource, key, marked, now)
    const code = opts.orphanDependents === false ? 202 : 200
    const result = { code, object: withTypeMeta(saved, resource) }
    this.collectGarbage(resource, key, now)
    return result
  }

  /**
   * The minimal garbage-collection step: removes `orphan` (after orphaning dependents) and
   * `foregroundDeletion` (after deleting dependents) so nothing is stuck terminating.
   */
  private collectGarbage(resource: ResourceType, key: string, now: number): void {
    const store = this.state.store
    const obj = store.get(resource, key)
    if (!obj) return
    const finalizers = obj.metadata.finalizers ?? []
    const gcFinalizers = finalizers.filter((f) => f === "orphan" || f === "foregroundDeletion")
    if (gcFinalizers.length === 0) return
    const uid = obj.metadata.uid
    // An owner without a uid owns nothing (a reference without one would otherwise match it).
    for (const type of uid ? resourceTypes : []) {
      const dependents = store.page({ resource: type, revision: store.revision, prefix: "", start: "", limit: undefined, countRemaining: false, matches: (o) => ownedBy(o, uid!) })
      for (const dep of dependents.items) {
        const depKey = this.state.key(type, dep.metadata.namespace, dep.metadata.name!)
        if (finalizers.includes("orphan")) {
          const ownerReferences = (dep.metadata.ownerReferences ?? []).filter((r) => !isRecord(r) || r.uid !== uid)
          store.put(type, depKey, { ...dep, metadata: { ...extendable, ...dep.metadata, ownerReferences } }, now)
        } else {
          this.deleteObject(type, depKey, dep, {}, now)
        }
      }
    }
    const remaining = finalizers.filter((f) => f !== "orphan" && f !== "foregroundDeletion")
    if (remaining.length === 0) store.remove(resource, key, now)
    else store.put(resource, key, { ...obj, metadata: { ...obj.metadata, finalizers: remaining } }, now)
  }

  /**
   * The namespace lifecycle (upstream `pkg/registry/core/namespace/storage`, `pkg/controller/namespace`): a
   * namespace whose `spec.finalizers` holds `platform` (upstream `kubernetes`) turns `Terminating`, which is what
   * the DELETE answers; then the namespace controller's work follows at once in the simulated server — the
   * contents are removed, the finalizer is taken out (`finalize`), and the namespace is gone unless other
   * finalizers remain. Watchers see each step.
   */
  private deleteNamespace(key: string, stored: KObject, finalizers: ReadonlyArray<string>, now: number): DeleteResult {
    const store = this.state.store
    const name = stored.metadata.name!
    const spec = (stored.spec ?? {}) as { readonly finalizers?: ReadonlyArray<string> }
    const specFinalizers = spec.finalizers ?? []
    if (specFinalizers.length === 0 && finalizers.length === 0) {
      this.removeNamespaceContents(name, now)
      store.remove(Namespaces, key, now)
      return { code: 200, status: Status.deleteSuccess(Namespaces, name, stored.metadata.uid ?? "") }
    }
    const terminating: KObject = {
      ...extendable,
      ...stored,
      metadata: { ...extendable, ...stored.metadata, deletionTimestamp: rfc3339(now), deletionGracePeriodSeconds: 0, ...(finalizers.length > 0 ? { finalizers } : {}) },
      status: { ...extendable, ...(stored.status as object), phase: "Terminating" }
    }
    const saved = store.put(Namespaces, key, terminating, now)
    this.removeNamespaceContents(name, now)
    // `finalize` takes the controller's finalizer out; the controller's next delete then removes a namespace
    // nothing holds any more.
    const remaining = specFinalizers.filter((f) => f !== "platform" && f !== "kubernetes")
    if (remaining.length !== specFinalizers.length) {
      // An empty list is omitted (`omitempty`), as upstream writes the spec.
      const { finalizers: _f, ...rest } = spec
      store.put(Namespaces, key, { ...extendable, ...saved, spec: remaining.length > 0 ? { ...rest, finalizers: remaining } : rest }, now)
    }
    if (remaining.length === 0 && finalizers.length === 0) store.remove(Namespaces, key, now)
    return { code: 200, object: withTypeMeta(saved, Namespaces) }
  }

  /** "A namespaced resource type is deleted when its namespace is deleted" (upstream namespace lifecycle). */
  private removeNamespaceContents(namespace: string, now: number): void {
    const store = this.state.store
    for (const type of resourceTypes) {
      if (!type.namespaced) continue
      const prefix = keyPrefix(namespace)
      const page = store.page({ resource: type, revision: store.revision, prefix, start: prefix, limit: undefined, matches: everything, countRemaining: false })
      for (const obj of page.items) store.remove(type, objectKey(namespace, obj.metadata.name!), now)
    }
  }
}

/**
 * Whether `obj` names `uid` among its owners. Read defensively: the scan reads every stored object, and one
 * malformed reference must not fail the delete of an unrelated object (writes validate owner references, but
 * the scan is the wrong place to trust that).
 */
const ownedBy = (obj: KObject, uid: string): boolean => {
  const refs: unknown = obj.metadata.ownerReferences
  return Array.isArray(refs) && refs.some((r) => isRecord(r) && r.uid === uid)
}

const preconditionConflict = (resource: ResourceType, name: string, detail: string) =>
  Status.conflict({ group: resource.group, plural: resource.kind }, name, detail)

const forbiddenNamespaceDelete = (name: string) =>
  new Status.ApiError({
    status: Status.makeStatus({
      code: 403,
      reason: "Forbidden",
      message: `namespaces "${name}" is forbidden: this namespace may not be deleted`,
      details: { name, kind: "namespaces" }
    })
  })
