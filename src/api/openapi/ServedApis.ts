/**
 * What the OpenAPI documents describe: every served resource (stored types and the upstream-name views of
 * `ServedNames.ts`) with the schema the decoder checks it against, grouped by group/version as the documents
 * are split (`/openapi/v3/api/v1`, `/openapi/v3/apis/<group>/<version>`).
 */
import type { FieldSchema } from "../kinds/FieldSchema.js"
import { envelopeSchema } from "../kinds/FieldSchema.js"
import { packageOf } from "../protobuf/Envelope.js"
import { apiVersionOf, resourceTypes, resourceVerbs, type ResourceType } from "../Resources.js"
import { findView } from "../ServedNames.js"

export interface GroupVersionKind {
  readonly group: string
  readonly version: string
  readonly kind: string
}

export interface ServedApi {
  readonly group: string
  readonly version: string
  readonly kind: string
  readonly plural: string
  readonly namespaced: boolean
  readonly verbs: ReadonlyArray<string>
  /** Subresources served with the kind's own schema (`status`). */
  readonly subresources: ReadonlyArray<string>
  /** The schema the server decodes bodies with (the envelope alone when the kind has none). */
  readonly schema: FieldSchema
  /** The kind's definition name, shared by every name it is served under: `io.k8s.api.coordination.v1.Lease`. */
  readonly definition: string
  /** Upstream's Go package of the kind, in OpenAPI spelling: `io.k8s.api.coordination.v1`. */
  readonly pkg: string
  /** Every group/version/kind the definition is served as (the spec's group and its upstream-name views). */
  readonly gvks: ReadonlyArray<GroupVersionKind>
}

/** `io.k8s.api.core.v1` for a group and version (the protobuf package, reversed as OpenAPI names it). */
const openApiPackage = (group: string, version: string, kind: string): string => {
  const pkg = packageOf(group, version)
  if (pkg === undefined) throw new Error(`no Go package known for ${kind} of ${group}/${version}`)
  return pkg.replace(/^k8s\.io\./, "io.k8s.")
}

const schemaOf = (r: ResourceType): FieldSchema => r.rules.schema ?? envelopeSchema

/** Every group/version a stored type is served under: its own and the views of it (docs/upstream-names.md). */
const namesOf = (r: ResourceType): ReadonlyArray<{ group: string; version: string; readOnly: boolean }> => {
  const own = { group: r.group, version: r.version, readOnly: false }
  const candidates = [r.group.replace(/\.platform$/, ".k8s.io"), ""].filter((g) => g !== r.group)
  const views = candidates.flatMap((group) => {
    const view = findView(group, r.version, r.plural)
    return view && view.resource === r ? [{ group, version: r.version, readOnly: view.readOnly }] : []
  })
  return [own, ...views]
}

const readOnlyVerbs = new Set(["get", "list", "watch", "delete", "deletecollection"])

/** The served APIs, in discovery order, each name of a type one entry. */
export const servedApis: ReadonlyArray<ServedApi> = resourceTypes.flatMap((r) => {
  const names = namesOf(r)
  // A view in another package (core v1 events of events.platform Events) is its own definition.
  const byPackage = new Map<string, Array<{ group: string; version: string; readOnly: boolean }>>()
  for (const n of names) {
    const pkg = openApiPackage(n.group, n.version, r.kind)
    byPackage.set(pkg, [...(byPackage.get(pkg) ?? []), n])
  }
  return [...byPackage.entries()].flatMap(([pkg, inPackage]) => {
    const gvks = inPackage.map((n) => ({ group: n.group, version: n.version, kind: r.kind }))
    return inPackage.map((n) => ({
      group: n.group,
      version: n.version,
      kind: r.kind,
      plural: r.plural,
      namespaced: r.namespaced,
      verbs: resourceVerbs(r).filter((v) => !n.readOnly || readOnlyVerbs.has(v)),
      subresources: n.readOnly ? [] : r.subresources.filter((s) => s === "status"),
      // A read-only view in another shape (core v1 events) is not described field by field.
      schema: n.readOnly ? envelopeSchema : schemaOf(r),
      definition: `${pkg}.${r.kind}`,
      pkg,
      gvks
    }))
  })
})

/** `api/v1` or `apis/<group>/<version>`: the key of the v3 index and the document's path below `/openapi/v3/`. */
export const groupVersionPath = (gv: { readonly group: string; readonly version: string }): string =>
  gv.group === "" ? `api/${gv.version}` : `apis/${gv.group}/${gv.version}`

/** The served group/versions, in discovery order. */
export const servedGroupVersions = (): ReadonlyArray<{ readonly group: string; readonly version: string }> => {
  const seen = new Map<string, { group: string; version: string }>()
  for (const a of servedApis) seen.set(apiVersionOf(a), { group: a.group, version: a.version })
  return [...seen.values()]
}
