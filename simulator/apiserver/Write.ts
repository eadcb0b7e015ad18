/**
 * create, update (PUT), patch and the pods/binding subresource: system metadata, defaults, validation, optimistic
 * concurrency, the status subresource and dry-run (as upstream's generic registry store). Bodies are decoded by
 * `Decode.ts`; every write comes in through `Admission`. Stored objects are never mutated: a write stores a new
 * object that shares the unchanged parts of the old one.
 */
import { Effect, Either } from "effect"
import { GoUint, invalid as invalidField, type FieldError } from "../../src/api/FieldError.js"
import { rbacGroup } from "../../src/api/kinds/Rbac.js"
import { validateForCreate, validateForUpdate } from "../../src/api/kinds/Validation.js"
import { defaultPodOnCreate, defaultPodOnUpdate, defaultPodTemplateOf } from "../../src/api/kinds/PodDefaults.js"
import { isRecord, type KObject, type ObjectMeta } from "../../src/api/Object.js"
import { extendable } from "../../src/api/internal/V8Shapes.js"
import { applyPatch } from "../../src/api/Patch.js"
import type { PatchType, WriteOptions, WriteResult } from "../../src/api/Requests.js"
import { incorrectApplyVersion } from "../../src/api/ServedNames.js"
import { apiVersionOf, Deployments, invalidKindOf, Namespaces, Pods, ReplicaSets, Services, type ResourceType } from "../../src/api/Resources.js"
import { allocateCreate, allocateUpdate, type AllocationRefusal } from "../../src/api/kinds/ServiceAllocation.js"
import * as Status from "../../src/api/Status.js"
import type { ApiError } from "../../src/api/Status.js"
import type { Admission } from "./Admission.js"
import type { RoleEscalation } from "./auth/RoleEscalation.js"
import type { UserInfo } from "./auth/UserInfo.js"
import { checkTypeMeta, checkWriteOptions, decodeBody, isDryRun, type Body } from "./Decode.js"
import { recordApply, recordUpdate } from "./FieldManager.js"
import { writeRenewal } from "./LeaseRenewal.js"
import { writeHeartbeat } from "./NodeHeartbeat.js"
import { writeStatusMergePatch } from "./StatusMergePatch.js"
import { sameObject } from "../../src/api/SameObject.js"
import type { ServerState } from "./ServerState.js"
import { EntryNote } from "./EntryNote.js"
import type { Entry } from "./Store.js"
import { generatedName, rfc3339, uuidV4 } from "./SystemMeta.js"
import { stripTypeMeta } from "./TypeMeta.js"
import { withTypeMeta } from "./WatchHub.js"

/** A write's options as the server takes them: with the user a transport authenticated (none for the server's own writes). */
export interface ServerWriteOptions extends WriteOptions {
  readonly caller?: UserInfo | undefined
  /** An in-process caller's note of the entry an update writes (`EntryNote.ts`: a node agent's lease renewals). */
  readonly note?: EntryNote | undefined
}

/**
 * An update's options that are also its note of the entry it writes (`EntryNote.ts`): a node agent renews its lease
 * with one, so that the server reads one object for both, not a second cold one per renewal (docs/benchmarks.md
 * "Where a lease renewal's CPU goes").
 */
export class NotingWriteOptions extends EntryNote implements ServerWriteOptions {
  readonly note: EntryNote = this

  constructor(readonly namespace: string) {
    super()
  }
}

export class Write {
  constructor(
    private readonly state: ServerState,
    private readonly admission: Admission,
    /** RBAC's escalation check (RBAC mode only), run on RBAC objects written by a caller. */
    private readonly escalation: RoleEscalation | undefined = undefined
  ) {}

  create(resource: ResourceType, body: Body, opts: ServerWriteOptions = {}): Effect.Effect<WriteResult, ApiError> {
    return this.admission.admitted((now) => this.createAt(resource, body, opts, now))
  }

  /** `create` at a given time, synchronously: the request path for in-process callers that keep their own clock. */
  createAt(resource: ResourceType, body: Body, opts: ServerWriteOptions, now: number): Either.Either<WriteResult, ApiError> {
    if (opts.subresource === "binding") return this.bind(body, opts, now)
    if (opts.subresource) return Either.left(Status.methodNotAllowed())
    const bad = checkWriteOptions("CreateOptions", opts)
    if (bad) return Either.left(bad)
    const decoded = decodeBody(resource, body, opts.fieldValidation, false)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    return created(this.createObject(resource, decoded.right.object, opts, now), decoded.right.warnings)
  }

  update(resource: ResourceType, name: string, body: Body, opts: ServerWriteOptions = {}): Effect.Effect<WriteResult, ApiError> {
    return this.admission.admitted((now) => this.updateAt(resource, name, body, opts, now))
  }

  /** `update` at a given time, synchronously: the request path for in-process callers that keep their own clock. */
  updateAt(resource: ResourceType, name: string, body: Body, opts: ServerWriteOptions, now: number): Either.Either<WriteResult, ApiError> {
    const bad = checkWriteOptions("UpdateOptions", opts)
    if (bad) return Either.left(bad)
    if (!takes(updatable, resource, opts.subresource)) return Either.left(Status.methodNotAllowed())
    // Parts sent back as they were read from the stored object need no decoding.
    const entry = this.state.findNoted(resource, opts.namespace, name, opts.note)
    // The common write of a cluster, a lease renewal, written without the general path's work (LeaseRenewal.ts).
    const renewed = entry === undefined ? undefined : writeRenewal(this.state.store, resource, name, entry, body, opts, now)
    if (renewed !== undefined) return Either.right(renewed)
    const decoded = decodeBody(resource, body, opts.fieldValidation, false, entry?.obj)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    return this.updateObject(resource, name, decoded.right.object, opts, now, decoded.right.warnings, entry)
  }

  patch(resource: ResourceType, name: string, patchType: PatchType, patch: Body, opts: ServerWriteOptions = {}): Effect.Effect<WriteResult, ApiError> {
    return this.admission.admitted((now) => this.patchAt(resource, name, patchType, patch, opts, now))
  }

  /** `patch` at a given time, synchronously: the request path for in-process callers that keep their own clock. */
  patchAt(resource: ResourceType, name: string, patchType: PatchType, patch: Body, opts: ServerWriteOptions, now: number): Either.Either<WriteResult, ApiError> {
    const bad = checkWriteOptions("PatchOptions", opts, patchType)
    if (bad) return Either.left(bad)
    if (!takes(patchable, resource, opts.subresource)) return Either.left(Status.methodNotAllowed())
    if (patchType === "apply") return this.applyAt(resource, name, patch, opts, now)
    const entry = this.state.find(resource, opts.namespace, name)
    const stored = entry?.obj
    if (!stored) return Either.left(Status.notFound(resource, name))
    // A node agent's status report that only beats, written without the general path's work (NodeHeartbeat.ts).
    const beat = writeHeartbeat(this.state.store, resource, name, entry!, patchType, patch, opts, now)
    if (beat !== undefined) return Either.right(beat)
    // Any other merge patch of only the status (every pod's first status write), without the general path's copies
    // (StatusMergePatch.ts).
    const statusWrite = writeStatusMergePatch(this.state.store, resource, name, entry!, patchType, patch, opts, now)
    if (statusWrite !== undefined) return Either.right(statusWrite)
    // A merge patch that does not touch kind/apiVersion is applied to the stored form (one copy of the object less).
    const value = patch.value
    const bare = patchType !== "json" && isRecord(value) && !("kind" in value) && !("apiVersion" in value)
    const patched = applyPatch(bare ? stored : withTypeMeta(stored, resource), patchType, value, resource.rules.schema)
    if (Either.isLeft(patched)) return Either.left(patched.left)
    const decoded = decodeBody(resource, { value: patched.right }, opts.fieldValidation, true, stored)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    const { object, warnings } = decoded.right
    // Upstream's checkName on the patched object (handlers/patch.go applyPatch, rest.go checkName): a patch that
    // takes the name away (`{"$patch":"delete"}` at a strategic merge patch's top empties the whole object) is
    // refused, not stored under the URL's name.
    if (!object.metadata.name) return Either.left(Status.badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`))
    // A patch is based on the stored object: unconditional unless the patch itself sets a resourceVersion.
    const rv = object.metadata.resourceVersion || stored.metadata.resourceVersion
    const input = rv === object.metadata.resourceVersion ? object : { ...extendable, ...object, metadata: { ...extendable, ...object.metadata, resourceVersion: rv } }
    return this.updateObject(resource, name, input, opts, now, warnings, entry)
  }

  /**
   * Server-side apply (`handlers/patch.go` `applyPatcher`): the configuration merged into the live object with field
   * ownership, or a create (201) when there is none; then validated and stored as any write.
   */
  private applyAt(resource: ResourceType, name: string, patch: Body, opts: ServerWriteOptions, now: number): Either.Either<WriteResult, ApiError> {
    const config = patch.value
    if (!isRecord(config)) return Either.left(Status.badRequest("error decoding YAML: the apply patch is not an object"))
    const expected = apiVersionOf(resource)
    if (config.apiVersion !== expected)
      return Either.left(incorrectApplyVersion(config.apiVersion, expected))
    if (isRecord(config.metadata) && config.metadata.managedFields !== undefined && config.metadata.managedFields !== null)
      return Either.left(Status.badRequest("metadata.managedFields must be nil"))
    const decoded = decodeBody(resource, patch, opts.fieldValidation, true)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    const { object, warnings } = decoded.right
    const entry = this.state.find(resource, opts.namespace, name)
    const live = entry?.obj
    const merged = recordApply(resource, live, object, opts, now)
    if (Either.isLeft(merged)) return Either.left(merged.left)
    const applied = merged.right
    if (live === undefined) {
      if (opts.subresource) return Either.left(Status.notFound(resource, name))
      const { resourceVersion: _rv, ...meta } = applied.metadata
      return created(this.createObject(resource, { ...applied, metadata: { ...meta, name } }, opts, now, true, name), warnings)
    }
    // Like a patch, an apply is unconditional unless the configuration names a resourceVersion.
    const rv = object.metadata.resourceVersion || live.metadata.resourceVersion
    const input = { ...extendable, ...applied, metadata: { ...extendable, ...applied.metadata, resourceVersion: rv } }
    return this.updateObject(resource, name, input, opts, now, warnings, entry, true)
  }

  private createObject(
    resource: ResourceType,
    input: KObject,
    opts: ServerWriteOptions,
    now: number,
    applied = false,
    /** The name the URL gives (a PUT or apply that creates); a POST's has none. */
    requestName = ""
  ): Either.Either<KObject, ApiError> {
    const typeProblem = checkTypeMeta(resource, input)
    if (typeProblem) return Either.left(typeProblem)
    const meta = input.metadata
    if (meta.resourceVersion) return Either.left(Status.internal("resourceVersion should not be set on objects to be created"))
    let namespace: string | undefined
    if (resource.namespaced) {
      if (meta.namespace && opts.namespace && meta.namespace !== opts.namespace)
        return Either.left(Status.badRequest("the namespace of the provided object does not match the namespace sent on the request"))
      namespace = opts.namespace || meta.namespace || undefined
    }
    const random = this.state.random
    const generated = !meta.name && meta.generateName ? generatedName(meta.generateName, random) : undefined
    const name = meta.name || generated || ""
    const { deletionTimestamp: _d, deletionGracePeriodSeconds: _g, selfLink: _s, uid: _u, creationTimestamp: _c, ...kept } = meta
    const metadata: ObjectMeta = {
      ...extendable,
      ...withoutEmptyMaps(kept),
      name,
      ...(namespace ? { namespace } : {}),
      uid: uuidV4(random),
      creationTimestamp: rfc3339(now)
    }
    if (!resource.namespaced) delete (metadata as { namespace?: string }).namespace
    const built: KObject = defaulted(resource, { ...extendable, ...input, apiVersion: apiVersionOf(resource), kind: resource.kind, metadata })
    // Upstream's policy-based RBAC storage checks before BeforeCreate: the name as the request gave it (none yet for generateName).
    const escalated = this.escalationRefusal(resource, built, undefined, namespace, requestName, meta.name ?? "", opts)
    if (escalated) return Either.left(escalated)
    // An apply brings its managed fields; every other create is an Update by its manager.
    const recorded = applied ? built : recordUpdate(resource, undefined, built, opts, now)
    // The Service registry's allocation comes before validation (upstream `beginCreate` runs before `BeforeCreate`).
    const allocated = resource === Services ? this.allocated(name, allocateCreate(recorded, this.state.serviceAddresses)) : Either.right(recorded)
    if (Either.isLeft(allocated)) return Either.left(allocated.left)
    const object = allocated.right
    const errors = validateForCreate(resource.rules, resource.namespaced, object)
    if (errors.length > 0) return Either.left(invalidObject(resource, name, errors))
    const missingNs = this.state.requireNamespace(resource, namespace)
    if (missingNs) return Either.left(missingNs)
    const terminating = this.refusedInTerminatingNamespace(resource, namespace, meta.name ?? "")
    if (terminating) return Either.left(terminating)
    const existing = this.state.find(resource, namespace, name)?.obj
    if (existing) {
      return Either.left(
        generated ? Status.generateNameConflict(resource, name) : Status.alreadyExists(resource, name, existing.metadata.deletionTimestamp !== undefined)
      )
    }
    if (isDryRun(opts.dryRun)) return Either.right(object)
    // `object` and its metadata were built here for this write: the store may keep them as they are.
    return Either.right(withTypeMeta(this.state.store.putFresh(resource, this.state.key(resource, namespace, name), stripTypeMeta(object), now), resource))
  }

  /**
   * NamespaceLifecycle admission (upstream `plugin/pkg/admission/namespace/lifecycle`): nothing new is created in
   * a namespace being terminated. The name is the one the request gave (empty with `generateName`).
   */
  private refusedInTerminatingNamespace(resource: ResourceType, namespace: string | undefined, name: string): ApiError | undefined {
    if (!resource.namespaced || !namespace) return undefined
    const phase = (this.state.store.get(Namespaces, namespace)?.status as { readonly phase?: string } | undefined)?.phase
    return phase === "Terminating" ? Status.namespaceTerminating(resource, name, namespace) : undefined
  }

  private updateObject(
    resource: ResourceType,
    name: string,
    input: KObject,
    opts: WriteOptions,
    now: number,
    warnings: ReadonlyArray<string>,
    /**
     * The caller's own lookup under the request's namespace, reused when the body names the same one (one lookup
     * per request). The entry alone, not a record with the namespace: one object less per write.
     */
    lookedUp: Entry | undefined,
    /** The input carries the managed fields of an Apply. */
    applied = false
  ): Either.Either<WriteResult, ApiError> {
    const typeProblem = checkTypeMeta(resource, input)
    if (typeProblem) return Either.left(typeProblem)
    const meta = input.metadata
    if (meta.name !== undefined && meta.name !== "" && meta.name !== name)
      return Either.left(Status.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`))
    if (resource.namespaced && meta.namespace && opts.namespace && meta.namespace !== opts.namespace)
      return Either.left(Status.badRequest("the namespace of the provided object does not match the namespace sent on the request"))
    const namespace = resource.namespaced ? opts.namespace || meta.namespace || undefined : undefined
    const entry = !resource.namespaced || opts.namespace === namespace ? lookedUp : this.state.find(resource, namespace, name)
    const stored = entry?.obj
    if (!stored) {
      if (!resource.allowCreateOnUpdate || opts.subresource) return Either.left(Status.notFound(resource, name))
      const { resourceVersion: _rv, ...rest } = meta
      return created(this.createObject(resource, { ...input, metadata: { ...rest, name } }, opts, now, false, name), warnings)
    }
    // Upstream checks inside UpdatedObjectInfo: after the stored object is read, before the resourceVersion is compared.
    const escalated = this.escalationRefusal(resource, input, stored, namespace, name, meta.name || name, opts)
    if (escalated) return Either.left(escalated)
    if (!meta.resourceVersion) {
      if (!resource.allowUnconditionalUpdate)
        return Either.left(
          Status.invalid(Status.qualifiedResource(resource), name, [invalidField("metadata.resourceVersion", new GoUint(0), "must be specified for an update")], {
            kind: resource.plural,
            group: resource.group
          })
        )
    } else if (meta.resourceVersion !== stored.metadata.resourceVersion) {
      return Either.left(Status.modifiedConflict(resource, name))
    }
    const kindDefaults = opts.subresource === undefined ? resource.rules.defaults : undefined
    const sent =
      opts.subresource !== undefined
        ? input
        : withPodTemplates.has(resource)
          ? defaultPodTemplateOf(input)
          : // A spec shared with the stored pod (a patch elsewhere) is already defaulted: keep the sharing.
            resource === Pods
            ? input.spec !== stored.spec
              ? defaultPodOnUpdate(input)
              : input
            : kindDefaults
              ? kindDefaults(input)
              : input
    const merged = mergeForUpdate(resource, stored, sent, opts.subresource, applied)
    // The candidate as stored (no kind/apiVersion, the stored resourceVersion), for validation and the no-op check.
    const candidateForm = storedForm(merged, serverOwnedMeta(merged.metadata, stored.metadata, name, namespace))
    // The Service registry keeps what it allocated and allocates what is new, before validation (`beginUpdate`).
    const allocated =
      resource === Services && opts.subresource === undefined
        ? this.allocated(name, allocateUpdate(candidateForm, stored, this.state.serviceAddresses))
        : Either.right(candidateForm)
    if (Either.isLeft(allocated)) return Either.left(allocated.left)
    const unbumped = allocated.right
    const errors = validateForUpdate(resource.rules, unbumped, stored)
    if (errors.length > 0) return Either.left(invalidObject(resource, name, errors))
    // A spec change bumps a workload's generation (in a new metadata object: the candidate's may be the caller's).
    const bumped = withPodTemplates.has(resource) && !sameObject(unbumped.spec, stored.spec)
      ? { ...unbumped, metadata: { ...extendable, ...unbumped.metadata, generation: (stored.metadata.generation ?? 0) + 1 } }
      : unbumped
    const candidate = applied ? bumped : recordUpdate(resource, stored, bumped, opts, now)
    if (sameObject(candidate, stored)) return Either.right({ code: 200, object: withTypeMeta(stored, resource), warnings })
    if (isDryRun(opts.dryRun)) return Either.right({ code: 200, object: withTypeMeta(candidate, resource), warnings })
    const store = this.state.store
    if (stored.metadata.deletionTimestamp !== undefined && (candidate.metadata.finalizers ?? []).length === 0) {
      // The last finalizer removed from a terminating object: it goes (upstream "Finalizers").
      store.remove(resource, entry!.key, now)
      return Either.right({ code: 200, object: withTypeMeta(candidate, resource), warnings })
    }
    // New managed fields come in a new object and metadata made for this write: stored as they are, not copied again.
    const fresh = candidate !== bumped
    return Either.right({ code: 200, object: withTypeMeta(store.replace(resource, entry!, candidate, now, fresh), resource), warnings })
  }

  /** A Service's allocation, its refusal as upstream's answer: a 422 on the field, or a 500 for a full range. */
  private allocated(name: string, outcome: Either.Either<KObject, AllocationRefusal>): Either.Either<KObject, ApiError> {
    if (Either.isRight(outcome)) return Either.right(outcome.right)
    const refusal = outcome.left
    return Either.left(refusal._tag === "Invalid" ? invalidObject(Services, name, refusal.errors) : Status.internalError(refusal.message))
  }

  /** RBAC's escalation check of an RBAC object a caller writes (auth/RoleEscalation.ts); nothing for any other write. */
  private escalationRefusal(
    resource: ResourceType,
    object: KObject,
    previous: KObject | undefined,
    namespace: string | undefined,
    requestName: string,
    /** The object's name as the request gave it (none yet for a create with generateName). */
    objectName: string,
    opts: ServerWriteOptions
  ): ApiError | undefined {
    const user = opts.caller
    if (this.escalation === undefined || user === undefined || resource.group !== rbacGroup) return undefined
    // Upstream's NamespaceLifecycle admission answers a create before the storage's check does.
    if (previous === undefined) {
      const refused = this.state.requireNamespace(resource, namespace) ?? this.refusedInTerminatingNamespace(resource, namespace, objectName)
      if (refused) return refused
    }
    const defaults = resource.rules.defaults
    const candidate = defaults ? defaults(object) : object
    return this.escalation.refusal({ resource, object: candidate, previous, namespace: namespace ?? "", requestName, objectName, user })
  }

  /** POST pods/<name>/binding: sets spec.nodeName once. */
  private bind(body: Body, opts: WriteOptions, now: number): Either.Either<WriteResult, ApiError> {
    return Either.gen(this, function* () {
      const binding = body.value
      if (!isRecord(binding) || !isRecord(binding.metadata) || !isRecord(binding.target))
        return yield* Either.left(Status.badRequest("Binding in version \"v1\" cannot be handled as a Binding: invalid binding"))
      // The create handler's EnsureObjectNamespaceMatchesRequestNamespace: a binding is for a pod of the URL's namespace.
      const namespace = binding.metadata.namespace
      if (namespace !== undefined && namespace !== null && namespace !== "" && namespace !== opts.namespace)
        return yield* Either.left(Status.badRequest("the namespace of the provided object does not match the namespace sent on the request"))
      const name = String(binding.metadata.name ?? "")
      const node = String(binding.target.name ?? "")
      const entry = this.state.find(Pods, opts.namespace, name)
      if (!entry) return yield* Either.left(Status.notFound(Pods, name))
      const pod = entry.obj
      const spec = (pod.spec ?? {}) as Record<string, unknown>
      if (spec.nodeName)
        return yield* Either.left(Status.conflict({ group: "", plural: "pods/binding" }, name, `pod ${name} is already assigned to node "${String(spec.nodeName)}"`))
      const status = (pod.status ?? {}) as Record<string, unknown>
      const conditions = ((status.conditions ?? []) as Array<Record<string, unknown>>).filter((c) => c.type !== "PodScheduled")
      conditions.push({ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: rfc3339(now) })
      const next = { ...pod, spec: { ...extendable, ...spec, nodeName: node }, status: { ...extendable, ...status, conditions } }
      if (!isDryRun(opts.dryRun)) this.state.store.replace(Pods, entry, next, now)
      return { code: 201, object: Status.makeStatus({ status: "Success", code: 201 }) as unknown as KObject, warnings: [] }
    })
  }
}

/**
 * A create's answer. Not `Either.map(…, (object) => ({ …, warnings }))` in the verbs: a closure over their
 * locals would make every call allocate a context (an update's, the create-on-update branch taken or not).
 */
const created = (made: Either.Either<KObject, ApiError>, warnings: ReadonlyArray<string>): Either.Either<WriteResult, ApiError> =>
  Either.isLeft(made) ? Either.left(made.left) : Either.right({ code: 201, object: made.right, warnings })

const invalidObject = (resource: ResourceType, name: string, errors: ReadonlyArray<FieldError>): ApiError => {
  const { qualifiedKind, group } = invalidKindOf(resource)
  return Status.invalid(qualifiedKind, name, errors, { kind: resource.kind, group })
}

/** Server-side defaults on create: namespace phase, workload generation and pod template, pods as upstream defaults them. */
const defaulted = (resource: ResourceType, obj: KObject): KObject => {
  if (resource === Pods) return defaultPodOnCreate(obj)
  if (resource === Namespaces) {
    // PrepareForCreate: the namespace controller's finalizer is always there (upstream `kubernetes`).
    const spec = (isRecord(obj.spec) ? obj.spec : {}) as { readonly finalizers?: ReadonlyArray<string> }
    const finalizers = spec.finalizers ?? []
    return { ...obj, spec: { ...spec, finalizers: finalizers.includes("platform") ? finalizers : [...finalizers, "platform"] }, status: { phase: "Active" } }
  }
  const created = withPodTemplates.has(resource) ? { ...obj, metadata: { ...extendable, ...obj.metadata, generation: 1 } } : obj
  // The Service strategy's PrepareForCreate: the status starts empty (`loadBalancer: {}`), whatever was sent.
  if (resource === Services) return { ...resource.rules.defaults!(created), status: { loadBalancer: {} } }
  if (resource.rules.defaults) return resource.rules.defaults(created)
  return withPodTemplates.has(resource) ? defaultPodTemplateOf(created) : created
}

/**
 * Served workload kinds with a pod template, defaulted on create and update (`defaultPodTemplateOf`), and with a
 * `metadata.generation` the server sets to 1 on create and bumps on a spec change (upstream's strategies).
 */
const withPodTemplates: ReadonlySet<ResourceType> = new Set([Deployments, ReplicaSets])

/**
 * The subresources an update writes: those whose upstream REST has an `Update` (`scale` is `Scale.ts`'s). A patch
 * also reads the object first (upstream's `rest.Patcher` is a getter and an updater), so `finalize`, whose REST has
 * no getter (pkg/registry/core/namespace/storage), takes no patch. The others (binding, eviction, token, log, exec,
 * attach, portforward) are create-, get- or connect-only: 405 for both.
 */
const updatable: ReadonlySet<string> = new Set(["status", "scale", "finalize"])
const patchable: ReadonlySet<string> = new Set(["status", "scale"])

/** The main resource, or a subresource `resource` serves that is in `verbs`. */
const takes = (verbs: ReadonlySet<string>, resource: ResourceType, subresource: string | undefined): boolean =>
  subresource === undefined || subresource === "" || (verbs.has(subresource) && resource.subresources.includes(subresource))

/** The main resource keeps the stored status; the status subresource changes only status. */
const mergeForUpdate = (resource: ResourceType, stored: KObject, input: KObject, subresource: string | undefined, applied: boolean): KObject => {
  if (subresource === "status") return { ...extendable, ...stored, metadata: statusWriteMeta(stored.metadata, input.metadata, applied), status: input.status }
  if (resource.subresources.includes("status") && resource !== Namespaces) {
    const { status: _s, ...rest } = input
    return stored.status === undefined ? rest as KObject : { ...extendable, ...rest, status: stored.status } as KObject
  }
  return input
}

/**
 * A status write changes only labels, annotations and the resourceVersion precondition of the stored metadata, and,
 * for an Apply, the managed fields its field manager recorded (upstream's fieldmanager runs in the patch handler,
 * before the status strategy's PrepareForUpdate, which keeps them: `handlers/patch.go` `applyPatcher`). Any other
 * write's managed fields are recorded after this (`recordUpdate`), from the stored ones.
 */
const statusWriteMeta = (stored: ObjectMeta, sent: ObjectMeta, applied: boolean): ObjectMeta => {
  const labels = sent.labels ?? stored.labels
  const annotations = sent.annotations ?? stored.annotations
  const managedFields = applied ? sent.managedFields : stored.managedFields
  if (
    labels === stored.labels &&
    annotations === stored.annotations &&
    managedFields === stored.managedFields &&
    sent.resourceVersion === stored.resourceVersion
  )
    return stored
  const out: Record<string, unknown> = {
    ...extendable,
    ...stored,
    ...(labels !== undefined ? { labels } : {}),
    ...(annotations !== undefined ? { annotations } : {}),
    resourceVersion: sent.resourceVersion
  }
  if (managedFields !== stored.managedFields) {
    if (managedFields === undefined) delete out.managedFields
    else out.managedFields = managedFields
  }
  return out as ObjectMeta
}

/**
 * The metadata of an update as upstream's `rest.BeforeUpdate` prepares it for validation: name and namespace from
 * the request, the stored generation and creationTimestamp, the stored uid when none is sent, the stored deletion
 * timestamp while the object is being deleted, the stored grace period when none is sent, and the stored
 * resourceVersion. A uid, deletionTimestamp or grace period the client changed is kept, for `validateForUpdate`
 * to refuse (`field is immutable`). The client's own metadata when it already says exactly that (a client sending
 * back what it read), else a copy.
 */
const serverOwnedMeta = (sent: ObjectMeta, stored: ObjectMeta, name: string, namespace: string | undefined): ObjectMeta => {
  const meta = withoutEmptyMaps(sent)
  const uid = meta.uid || stored.uid
  // `null` (sent as JSON) is unset.
  const deletionTimestamp = stored.deletionTimestamp ?? meta.deletionTimestamp ?? undefined
  const grace = meta.deletionGracePeriodSeconds ?? stored.deletionGracePeriodSeconds ?? undefined
  if (
    meta.name === name &&
    meta.namespace === namespace &&
    meta.uid === uid &&
    meta.creationTimestamp === stored.creationTimestamp &&
    meta.generation === stored.generation &&
    meta.deletionTimestamp === deletionTimestamp &&
    meta.deletionGracePeriodSeconds === grace &&
    meta.resourceVersion === stored.resourceVersion
  )
    return meta
  const out: Record<string, unknown> = { ...extendable, ...meta, name, ...(namespace ? { namespace } : {}), uid, creationTimestamp: stored.creationTimestamp }
  if (stored.generation !== undefined) out.generation = stored.generation
  else delete out.generation
  if (deletionTimestamp !== undefined) out.deletionTimestamp = deletionTimestamp
  else delete out.deletionTimestamp
  if (grace !== undefined) out.deletionGracePeriodSeconds = grace
  else delete out.deletionGracePeriodSeconds
  out.resourceVersion = stored.resourceVersion
  return out as ObjectMeta
}

const isEmptyMap = (m: unknown): boolean => isRecord(m) && Object.keys(m).length === 0

/** Labels and annotations emptied (by a patch, or sent as `{}`) are omitted, as upstream's `omitempty` maps are. */
const withoutEmptyMaps = <M extends ObjectMeta>(meta: M): M => {
  if (!isEmptyMap(meta.labels) && !isEmptyMap(meta.annotations)) return meta
  const out: Record<string, unknown> = { ...extendable, ...meta }
  if (isEmptyMap(meta.labels)) delete out.labels
  if (isEmptyMap(meta.annotations)) delete out.annotations
  return out as M
}

/** `obj` as the store keeps it: without kind/apiVersion, with `metadata` (`obj` itself when it already is). */
const storedForm = (obj: KObject, metadata: ObjectMeta): KObject => {
  if (obj.metadata === metadata && !("kind" in obj) && !("apiVersion" in obj)) return obj
  const out: Record<string, unknown> = {}
  for (const key in obj) if (key !== "kind" && key !== "apiVersion") out[key] = obj[key]
  out.metadata = metadata
  return out as KObject
}

