/**
 * The `scale` subresource (`autoscaling/v1` Scale) of the workload kinds: upstream's `ScaleREST`
 * (`pkg/registry/apps/deployment/storage/storage.go`). A get answers the parent as a Scale; an update or a patch
 * works on that Scale and writes only `spec.replicas` back to the parent, conditional on the Scale's
 * resourceVersion (empty: unconditional). Pure mapping here; the reads and writes go through the `ApiServer`.
 */
import { Effect, Either } from "effect"
import { invalid as invalidField } from "../../src/api/FieldError.js"
import { isRecord, type KObject } from "../../src/api/Object.js"
import { applyPatch, type PatchType } from "../../src/api/Patch.js"
import type { WriteResult } from "../../src/api/Requests.js"
import { Deployments, ReplicaSets, type ResourceType } from "../../src/api/Resources.js"
import * as Status from "../../src/api/Status.js"
import type { ApiError } from "../../src/api/Status.js"
import type { ApiServerImpl, Body } from "./ApiServer.js"
import type { ServerWriteOptions } from "./Write.js"

/** The kinds serving `scale`: those whose registry has a `ScaleREST`. */
export const scalable: ReadonlySet<ResourceType> = new Set([Deployments, ReplicaSets])

/** The Scale's own type, for decoding a protobuf body (`autoscaling/v1`). */
export const scaleType: ResourceType = { ...Deployments, group: "autoscaling", version: "v1", apiVersion: "autoscaling/v1", kind: "Scale", plural: "scales", singular: "scale" }

/** `apps.Resource("deployments/scale")`: what a missing parent is reported as. */
const scaleResource = (resource: ResourceType) => ({ group: resource.group, plural: `${resource.plural}/scale` })

const scaleNotFound = (resource: ResourceType, name: string) => Status.notFound(scaleResource(resource), name)


/**
 * `metav1.LabelSelectorAsSelector(…).String()`: requirements sorted by key, an In/NotIn's values sorted;
 * a missing or empty selector is the empty string.
 */
export const selectorString = (selector: unknown): string => {
  if (!isRecord(selector)) return ""
  const reqs: Array<{ key: string; text: string }> = []
  if (isRecord(selector.matchLabels))
    for (const [k, v] of Object.entries(selector.matchLabels)) reqs.push({ key: k, text: `${k}=${String(v)}` })
  if (Array.isArray(selector.matchExpressions))
    for (const e of selector.matchExpressions) {
      if (!isRecord(e) || typeof e.key !== "string") continue
      const values = Array.isArray(e.values) ? [...new Set(e.values.map(String))].sort() : []
      switch (e.operator) {
        case "In":
          reqs.push({ key: e.key, text: `${e.key} in (${values.join(",")})` })
          break
        case "NotIn":
          reqs.push({ key: e.key, text: `${e.key} notin (${values.join(",")})` })
          break
        case "Exists":
          reqs.push({ key: e.key, text: e.key })
          break
        case "DoesNotExist":
          reqs.push({ key: e.key, text: `!${e.key}` })
          break
      }
    }
  return reqs
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => r.text)
    .join(",")
}

/** `scaleFromDeployment`: name, namespace, uid, resourceVersion and creation time of the parent; replicas both ways. */
export const scaleOf = (parent: KObject): KObject => {
  const meta = parent.metadata
  const spec = (parent.spec ?? {}) as Record<string, unknown>
  const status = (parent.status ?? {}) as Record<string, unknown>
  const replicas = typeof spec.replicas === "number" ? spec.replicas : 0
  const selector = selectorString(spec.selector)
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: meta.name,
      ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp
    },
    // ScaleSpec.replicas is `omitempty` (k8s.io/api autoscaling/v1 types.go); ScaleStatus.replicas is not.
    spec: replicas !== 0 ? { replicas } : {},
    status: { replicas: typeof status.replicas === "number" ? status.replicas : 0, ...(selector !== "" ? { selector } : {}) }
  } as KObject
}

const goTypeOf = (v: unknown) => (typeof v === "string" ? "string" : typeof v === "boolean" ? "bool" : Array.isArray(v) ? "array" : isRecord(v) ? "object" : "number")

/** The Scale a client sent, decoded as upstream's JSON decoder reads `autoscaling/v1` Scale's typed fields. */
const decodeScale = (value: unknown): Either.Either<{ name?: string; uid?: string; resourceVersion?: string; replicas: number }, ApiError> => {
  const cannot = (detail: string) => Either.left(Status.badRequest(`Scale in version "v1" cannot be handled as a Scale: ${detail}`))
  if (!isRecord(value)) return cannot(`json: cannot unmarshal ${goTypeOf(value)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`)
  const meta = isRecord(value.metadata) ? value.metadata : {}
  const spec = isRecord(value.spec) ? value.spec : {}
  const replicas = spec.replicas ?? 0
  if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas > 2147483647 || replicas < -2147483648)
    return cannot(`json: cannot unmarshal ${goTypeOf(replicas)} into Go struct field ScaleSpec.spec.replicas of type int32`)
  const str = (v: unknown) => (typeof v === "string" ? v : undefined)
  return Either.right({ name: str(meta.name), uid: str(meta.uid), resourceVersion: str(meta.resourceVersion), replicas })
}

/** A get of the scale: the parent, read as a Scale; a missing parent is `deployments/scale.apps "x" not found`. */
export const getScale = (api: ApiServerImpl, resource: ResourceType, name: string, namespace: string | undefined): Effect.Effect<KObject, ApiError> =>
  api.get(resource, name, { namespace }).pipe(
    Effect.mapError((e) => (e.code === 404 ? scaleNotFound(resource, name) : e)),
    Effect.map(scaleOf)
  )

/**
 * An update of the scale (`scaleUpdatedObjectInfo.UpdatedObject`): the new Scale, made from the current one, is
 * validated (`ValidateScale`), its uid checked as a precondition, then its replicas and resourceVersion move onto the
 * parent, which is written as any update (a stale resourceVersion is the parent's 409 Conflict).
 */
const writeScale = (
  api: ApiServerImpl,
  resource: ResourceType,
  name: string,
  opts: ServerWriteOptions,
  next: (current: KObject) => Either.Either<unknown, ApiError>
): Effect.Effect<WriteResult, ApiError> =>
  Effect.gen(function* () {
    const parent = yield* api.get(resource, name, { namespace: opts.namespace }).pipe(Effect.mapError((e) => (e.code === 404 ? scaleNotFound(resource, name) : e)))
    const sent = yield* next(scaleOf(parent))
    const scale = yield* decodeScale(sent)
    if (scale.name !== undefined && scale.name !== "" && scale.name !== name)
      return yield* Effect.fail(Status.badRequest(`the name of the object (${scale.name}) does not match the name on the URL (${name})`))
    if (scale.replicas < 0)
      return yield* Effect.fail(
        Status.invalid("Scale.autoscaling", name, [invalidField("spec.replicas", scale.replicas, "must be greater than or equal to 0")], { kind: "Scale", group: "autoscaling" })
      )
    if (scale.uid !== undefined && scale.uid !== "" && scale.uid !== parent.metadata.uid)
      return yield* Effect.fail(
        Status.conflict(scaleResource(resource), name, `Precondition failed: UID in precondition: ${scale.uid}, UID in object meta: ${parent.metadata.uid}`)
      )
    const { resourceVersion: _stored, ...meta } = parent.metadata
    const updated = {
      ...parent,
      metadata: scale.resourceVersion ? { ...meta, resourceVersion: scale.resourceVersion } : meta,
      spec: { ...(parent.spec as object), replicas: scale.replicas }
    } as KObject
    const result = yield* api.update(resource, name, { value: updated }, { ...opts, subresource: "scale" }).pipe(
      Effect.mapError((e) => (e.code === 404 ? scaleNotFound(resource, name) : e))
    )
    return { ...result, object: scaleOf(result.object) }
  })

/** A PUT of a Scale. */
export const updateScale = (api: ApiServerImpl, resource: ResourceType, name: string, body: Body, opts: ServerWriteOptions) =>
  writeScale(api, resource, name, opts, () => Either.right(body.value))

/** A merge, strategic merge or JSON patch of the Scale (upstream patches the Scale, not the parent). */
export const patchScale = (api: ApiServerImpl, resource: ResourceType, name: string, patchType: PatchType, body: Body, opts: ServerWriteOptions) =>
  writeScale(api, resource, name, opts, (current) => applyPatch(current, patchType, body.value))
