/**
 * The paths of the OpenAPI documents: one operation per served verb of each resource, as upstream's
 * `kube-openapi` route builder lays them out (collection, item, `status`, and the all-namespaces list), with the
 * query parameters the server honours and the two extensions clients read:
 * - `x-kubernetes-group-version-kind` on every operation, and
 * - `fieldValidation` among a PATCH operation's parameters, which is how kubectl (≥ 1.27,
 *   `cli-runtime` `queryParamVerifierV3`) decides to let the server check fields (`fieldValidation=Strict`)
 *   instead of validating client-side (spec 000 "Field validation").
 */
import { refTo, metaPackage, type Dialect, type SchemaObject } from "./SchemaObjects.js"
import type { ServedApi } from "./ServedApis.js"

interface Parameter {
  readonly name: string
  readonly in: "query" | "path"
  readonly description: string
  readonly type: "string" | "boolean" | "integer"
}

const query = (name: string, type: Parameter["type"], description: string): Parameter => ({ name, in: "query", type, description })

const params = {
  pretty: query("pretty", "string", "If 'true', then the output is pretty printed."),
  dryRun: query("dryRun", "string", "When present, indicates that modifications should not be persisted. The only valid value is All."),
  fieldManager: query("fieldManager", "string", "fieldManager is a name associated with the actor or entity that is making these changes."),
  fieldValidation: query(
    "fieldValidation",
    "string",
    "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields: Ignore, Warn (the default) or Strict."
  ),
  force: query("force", "boolean", "Force is going to \"force\" Apply requests. It means user will re-acquire conflicting fields owned by other people."),
  allowWatchBookmarks: query("allowWatchBookmarks", "boolean", "allowWatchBookmarks requests watch events with type \"BOOKMARK\"."),
  continue: query("continue", "string", "The continue option should be set when retrieving more results from the server."),
  fieldSelector: query("fieldSelector", "string", "A selector to restrict the list of returned objects by their fields. Defaults to everything."),
  labelSelector: query("labelSelector", "string", "A selector to restrict the list of returned objects by their labels. Defaults to everything."),
  limit: query("limit", "integer", "limit is a maximum number of responses to return for a list call."),
  resourceVersion: query("resourceVersion", "string", "resourceVersion sets a constraint on what resource versions a request may be served from."),
  resourceVersionMatch: query("resourceVersionMatch", "string", "resourceVersionMatch determines how resourceVersion is applied to list calls."),
  timeoutSeconds: query("timeoutSeconds", "integer", "Timeout for the list/watch call."),
  watch: query("watch", "boolean", "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications."),
  gracePeriodSeconds: query("gracePeriodSeconds", "integer", "The duration in seconds before the object should be deleted."),
  orphanDependents: query("orphanDependents", "boolean", "Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7."),
  propagationPolicy: query("propagationPolicy", "string", "Whether and how garbage collection will be performed: Orphan, Background or Foreground."),
  name: { name: "name", in: "path", type: "string", description: "name of the resource" } as Parameter,
  namespace: { name: "namespace", in: "path", type: "string", description: "object name and auth scope, such as for teams and projects" } as Parameter
} as const

const listParams = [params.allowWatchBookmarks, params.continue, params.fieldSelector, params.labelSelector, params.limit, params.resourceVersion, params.resourceVersionMatch, params.timeoutSeconds, params.watch]
const writeParams = [params.dryRun, params.fieldManager, params.fieldValidation]
const deleteParams = [params.dryRun, params.gracePeriodSeconds, params.orphanDependents, params.propagationPolicy]

const parameter = (dialect: Dialect, p: Parameter): SchemaObject => {
  const required = p.in === "path" ? { required: true } : {}
  const unique = p.in === "query" ? { uniqueItems: true } : {}
  return dialect === "v2"
    ? { description: p.description, in: p.in, name: p.name, ...required, type: p.type, ...unique }
    : { description: p.description, in: p.in, name: p.name, ...required, schema: { type: p.type, ...unique } }
}

/** Upstream's operation id parts: `Core`, `Coordination` (the `.k8s.io`/`.platform` suffix dropped), `V1`. */
const camel = (s: string): string => s.replace(/(^|[.-])([a-z0-9])/g, (_m, _sep, c: string) => c.toUpperCase())
const groupName = (group: string): string => (group === "" ? "Core" : camel(group.replace(/\.(k8s\.io|platform)$/, "")))

const mediaTypes = ["application/json", "application/yaml", "application/vnd.platform.protobuf"]
const patchTypes = ["application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml"]

export const patchDefinition = `${metaPackage}.Patch`
export const statusDefinition = `${metaPackage}.Status`

type Action = "get" | "list" | "post" | "put" | "patch" | "delete" | "deletecollection"

interface OperationSpec {
  readonly action: Action
  readonly operationId: string
  readonly description: string
  readonly parameters: ReadonlyArray<Parameter>
  /** The definition the body and the 200 answer carry. */
  readonly body?: string
  readonly answer: string
  readonly codes: ReadonlyArray<string>
}

const operation = (dialect: Dialect, api: ServedApi, tag: string, op: OperationSpec): SchemaObject => {
  const answerSchema = { $ref: refTo(dialect, op.answer) }
  const consumes = op.action === "patch" ? patchTypes : ["*/*"]
  const responses = Object.fromEntries([
    ...op.codes.map((code) => [
      code,
      dialect === "v2"
        ? { description: code === "201" ? "Created" : code === "202" ? "Accepted" : "OK", schema: answerSchema }
        : { description: code === "201" ? "Created" : code === "202" ? "Accepted" : "OK", content: Object.fromEntries(mediaTypes.map((m) => [m, { schema: answerSchema }])) }
    ]),
    ["401", { description: "Unauthorized" }]
  ])
  const bodyRef = op.body === undefined ? undefined : { $ref: refTo(dialect, op.body) }
  const gvk = { group: api.group, kind: api.kind, version: api.version }
  const common = {
    description: op.description,
    operationId: op.operationId,
    tags: [tag]
  }
  if (dialect === "v2")
    return {
      consumes,
      ...common,
      parameters: [...(bodyRef ? [{ in: "body", name: "body", required: true, schema: bodyRef }] : []), ...op.parameters.map((p) => parameter(dialect, p))],
      produces: mediaTypes,
      responses,
      schemes: ["https"],
      "x-kubernetes-action": op.action,
      "x-kubernetes-group-version-kind": gvk
    }
  return {
    ...common,
    parameters: op.parameters.map((p) => parameter(dialect, p)),
    ...(bodyRef ? { requestBody: { content: Object.fromEntries(consumes.map((m) => [m, { schema: bodyRef }])), required: true } } : {}),
    responses,
    "x-kubernetes-action": op.action,
    "x-kubernetes-group-version-kind": gvk
  }
}

const methodOf: Readonly<Record<Action, string>> = { get: "get", list: "get", post: "post", put: "put", patch: "patch", delete: "delete", deletecollection: "delete" }

/** The paths of one served API, keyed by URL template, each with its operations and path-level parameters. */
export const pathsOf = (dialect: Dialect, api: ServedApi): Record<string, SchemaObject> => {
  const base = api.group === "" ? `/api/${api.version}` : `/apis/${api.group}/${api.version}`
  const collection = api.namespaced ? `${base}/namespaces/{namespace}/${api.plural}` : `${base}/${api.plural}`
  const scope = api.namespaced ? "Namespaced" : ""
  const id = (verb: string, suffix = "") => `${verb}${groupName(api.group)}${camel(api.version)}${scope}${api.kind}${suffix}`
  const tag = `${api.group === "" ? "core" : api.group.replace(/\.(k8s\.io|platform)$/, "").replace(/\./g, "_")}_${api.version}`
  const list = `${api.definition}List`
  const can = (verb: string) => api.verbs.includes(verb)
  const pathParams = (withName: boolean) => [...(withName ? [params.name] : []), ...(api.namespaced ? [params.namespace] : []), params.pretty]
  const item: OperationSpec[] = [
    ...(can("get") ? [{ action: "get", operationId: id("read"), description: `read the specified ${api.kind}`, parameters: [], answer: api.definition, codes: ["200"] } as const] : []),
    ...(can("update") ? [{ action: "put", operationId: id("replace"), description: `replace the specified ${api.kind}`, parameters: writeParams, body: api.definition, answer: api.definition, codes: ["200", "201"] } as const] : []),
    ...(can("patch")
      ? [{ action: "patch", operationId: id("patch"), description: `partially update the specified ${api.kind}`, parameters: [...writeParams, params.force], body: patchDefinition, answer: api.definition, codes: ["200", "201"] } as const]
      : []),
    ...(can("delete") ? [{ action: "delete", operationId: id("delete"), description: `delete a ${api.kind}`, parameters: deleteParams, answer: statusDefinition, codes: ["200", "202"] } as const] : [])
  ]
  const coll: OperationSpec[] = [
    ...(can("list") ? [{ action: "list", operationId: id("list"), description: `list or watch objects of kind ${api.kind}`, parameters: listParams, answer: list, codes: ["200"] } as const] : []),
    ...(can("create") ? [{ action: "post", operationId: id("create"), description: `create a ${api.kind}`, parameters: writeParams, body: api.definition, answer: api.definition, codes: ["200", "201", "202"] } as const] : []),
    ...(can("deletecollection")
      ? [{ action: "deletecollection", operationId: id("delete", "").replace(/^delete/, "deleteCollection"), description: `delete collection of ${api.kind}`, parameters: [...deleteParams, ...listParams], answer: statusDefinition, codes: ["200"] } as const]
      : [])
  ]
  const status: OperationSpec[] = api.subresources.includes("status")
    ? [
        { action: "get", operationId: id("read", "Status"), description: `read status of the specified ${api.kind}`, parameters: [], answer: api.definition, codes: ["200"] },
        { action: "put", operationId: id("replace", "Status"), description: `replace status of the specified ${api.kind}`, parameters: writeParams, body: api.definition, answer: api.definition, codes: ["200", "201"] },
        { action: "patch", operationId: id("patch", "Status"), description: `partially update status of the specified ${api.kind}`, parameters: [...writeParams, params.force], body: patchDefinition, answer: api.definition, codes: ["200", "201"] }
      ]
    : []
  const allNamespaces: OperationSpec[] =
    api.namespaced && can("list")
      ? [{ action: "list", operationId: `list${groupName(api.group)}${camel(api.version)}${api.kind}ForAllNamespaces`, description: `list or watch objects of kind ${api.kind}`, parameters: listParams, answer: list, codes: ["200"] }]
      : []
  const pathItem = (ops: ReadonlyArray<OperationSpec>, withName: boolean): SchemaObject => ({
    ...Object.fromEntries(ops.map((op) => [methodOf[op.action], operation(dialect, api, tag, op)])),
    parameters: pathParams(withName).map((p) => parameter(dialect, p))
  })
  const out: Record<string, SchemaObject> = {}
  if (coll.length > 0) out[collection] = pathItem(coll, false)
  if (item.length > 0) out[`${collection}/{name}`] = pathItem(item, true)
  if (status.length > 0) out[`${collection}/{name}/status`] = pathItem(status, true)
  if (allNamespaces.length > 0) out[`${base}/${api.plural}`] = { get: operation(dialect, api, tag, allNamespaces[0]!), parameters: [parameter(dialect, params.pretty)] }
  return out
}
