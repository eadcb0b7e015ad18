/**
 * The OpenAPI documents the server publishes, built from the served APIs and their field schemas (one source of
 * truth with the decoder): a v3 document per group/version, the v3 index pointing at them with a content hash
 * (upstream's `kube-openapi` `handler3`: `serverRelativeURL` = `/openapi/v3/<path>?hash=<SHA-512, upper-case hex>`),
 * and one v2 document with every path and definition. Pure; the server caches what this returns.
 */
import { createHash } from "node:crypto"
import { FieldSchema } from "../kinds/FieldSchema.js"
import { pathsOf, patchDefinition, statusDefinition } from "./Operations.js"
import { DefinitionSet, metaPackage, type Dialect, type SchemaObject } from "./SchemaObjects.js"
import { groupVersionPath, servedApis, servedGroupVersions, type ServedApi } from "./ServedApis.js"

export interface DocumentInfo {
  /** The server's version as `/version` reports it (`v1.26.15-clustersim`). */
  readonly version: string
}

const S = FieldSchema

const listMetaSchema = S.object("v1.ListMeta", {
  continue: S.string(),
  remainingItemCount: S.int64(),
  resourceVersion: S.string(),
  selfLink: S.string()
})

/** `metav1.Status`, the answer of deletes and of every failure. */
const statusSchema: FieldSchema = {
  type: "object",
  fields: {
    apiVersion: S.string(),
    kind: S.string(),
    metadata: listMetaSchema,
    status: S.string(),
    message: S.string(),
    reason: S.string(),
    details: S.object("v1.StatusDetails", {
      name: S.string(),
      group: S.string(),
      kind: S.string(),
      uid: S.string("types.UID"),
      causes: S.array(S.object("v1.StatusCause", { reason: S.string(), message: S.string(), field: S.string() })),
      retryAfterSeconds: S.int32()
    }),
    code: S.int32()
  }
}

const gvkExtension = (api: ServedApi, kind = api.kind) => ({
  "x-kubernetes-group-version-kind": api.gvks.map((g) => ({ group: g.group, kind, version: g.version }))
})

/** `<Kind>List`: its items refer to the kind's definition (the kind's schema under its Go name). */
const listSchema = (api: ServedApi): FieldSchema => {
  const item = api.schema.type === "object" ? { ...api.schema, goType: `v1.${api.kind}` } : api.schema
  return { type: "object", fields: { apiVersion: S.string(), items: S.array(item), kind: S.string(), metadata: listMetaSchema } }
}

/** The definitions of a set of APIs: each kind, its list, and the meta types operations refer to. */
export const definitionsOf = (dialect: Dialect, apis: ReadonlyArray<ServedApi>): Record<string, SchemaObject> => {
  const set = new DefinitionSet(dialect)
  for (const api of apis) {
    set.add(api.definition, api.pkg, api.schema, gvkExtension(api))
    set.add(`${api.definition}List`, api.pkg, listSchema(api), { required: ["items"], ...gvkExtension(api, `${api.kind}List`) })
  }
  set.add(statusDefinition, metaPackage, statusSchema, { "x-kubernetes-group-version-kind": [{ group: "", kind: "Status", version: "v1" }] })
  set.define(patchDefinition, { description: "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.", type: "object" })
  return set.sorted()
}

const pathsOfAll = (dialect: Dialect, apis: ReadonlyArray<ServedApi>): Record<string, SchemaObject> => {
  const out: Record<string, SchemaObject> = {}
  for (const api of apis) Object.assign(out, pathsOf(dialect, api))
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

const securityDefinition = { type: "apiKey", description: "Bearer Token authentication", name: "authorization", in: "header" }

/** The v3 document of one group/version (`api/v1`, `apis/coordination.k8s.io/v1`), or undefined if not served. */
export const openApiV3Document = (info: DocumentInfo, path: string): SchemaObject | undefined => {
  const apis = servedApis.filter((a) => groupVersionPath(a) === path)
  if (apis.length === 0) return undefined
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: info.version },
    paths: pathsOfAll("v3", apis),
    components: { schemas: definitionsOf("v3", apis), securitySchemes: { BearerToken: securityDefinition } },
    security: [{ BearerToken: [] }]
  }
}

/** The v2 document: every served path and definition. */
export const openApiV2Document = (info: DocumentInfo): SchemaObject => ({
  swagger: "2.0",
  info: { title: "Kubernetes", version: info.version },
  paths: pathsOfAll("v2", servedApis),
  definitions: definitionsOf("v2", servedApis),
  securityDefinitions: { BearerToken: securityDefinition },
  security: [{ BearerToken: [] }]
})

/** The index paths (`api/v1`, `apis/apps/v1`, …) served under `/openapi/v3/`. */
export const openApiV3Paths = (): ReadonlyArray<string> => servedGroupVersions().map(groupVersionPath)

/** Upstream's content hash of a document's bytes: SHA-512 in upper-case hex. */
export const documentHash = (bytes: Uint8Array): string => createHash("sha512").update(bytes).digest("hex").toUpperCase()

/** The v3 index: each group/version's document by its path, with the hash of the bytes served there. */
export const openApiV3Index = (hashOf: (path: string) => string): SchemaObject => ({
  paths: Object.fromEntries(openApiV3Paths().map((p) => [p, { serverRelativeURL: `/openapi/v3/${p}?hash=${hashOf(p)}` }]))
})
