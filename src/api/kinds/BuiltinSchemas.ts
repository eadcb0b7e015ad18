/**
 * Field schemas of the built-in kinds whose fields are not described by hand (Pod, Node, Namespace, Service,
 * Deployment, the RBAC kinds), derived from the protobuf messages the server already encodes them with
 * (`src/api/protobuf/schema/`: upstream's field names, Go types and inline structs) and carrying the upstream
 * patch tags (`UpstreamTags.ts`). One description per kind: it decodes and validates bodies, drives strategic
 * merge patch and server-side apply, and is what the OpenAPI documents show.
 *
 * The messages are those of a newer release than 1.26, so a few later fields are known rather than unknown.
 * Field names with `kube`/`kubelet` in them are also known under their renamed form (spec README "Naming": the
 * kubelet is the node agent, `kube` becomes `platform`), which the node agents write, while stock clients and the
 * printers use upstream's: {@link renamedFields}.
 */
import { messagePlan, type FieldPlan, type MessagePlan, type ValuePlan } from "../protobuf/Schema.js"
import { FieldSchema, kindSchema, objectMetaSchema, type PatchTags } from "./FieldSchema.js"
import { tagsOf } from "./UpstreamTags.js"

/** `k8s.io.api.core.v1.PodSpec` → `core/v1.PodSpec`, the key of the tag table. */
const tagKeyOf = (messageName: string): string => {
  const parts = messageName.split(".")
  const type = parts[parts.length - 1]!
  const version = parts[parts.length - 2]!
  const group = parts[parts.length - 3]!
  return `${group}/${version}.${type}`
}

/** Upstream JSON names with a renamed twin, by type (`NodeSystemInfo.kubeletVersion` and `nodeAgentVersion`). */
const renamedFields: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "core/v1.NodeSystemInfo": { kubeletVersion: "nodeAgentVersion", kubeProxyVersion: "platformProxyVersion" },
  "core/v1.NodeDaemonEndpoints": { kubeletEndpoint: "nodeAgentEndpoint" }
}

const objectMetaMessage = "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta"

const withTags = (s: FieldSchema, tags: PatchTags | undefined): FieldSchema => {
  if (tags === undefined || (s.type !== "object" && s.type !== "map" && s.type !== "array")) return s
  return { ...s, patch: { ...s.patch, ...tags } }
}

const built = new Map<string, FieldSchema>()

const scalarSchema = (type: string): FieldSchema => {
  switch (type) {
    case "string":
      return FieldSchema.string()
    case "bytes":
      return FieldSchema.string("[]uint8")
    case "bool":
      return FieldSchema.boolean()
    case "int32":
      return FieldSchema.int32()
    case "uint32":
    case "uint64":
    case "int64":
      return FieldSchema.int64()
    default:
      return FieldSchema.number()
  }
}

const valueSchema = (v: ValuePlan): FieldSchema => {
  switch (v._tag) {
    case "scalar":
      return scalarSchema(v.type)
    case "special":
      switch (v.kind) {
        case "time":
          return FieldSchema.time()
        case "microtime":
          return FieldSchema.microtime()
        case "fieldsV1":
          return FieldSchema.raw()
        case "quantity":
          return { type: "any", format: "quantity" }
        case "intOrString":
          return { type: "any", format: "int-or-string" }
        case "rawExtension":
          return { type: "any", format: "raw-extension" }
      }
      return FieldSchema.any()
    case "message":
      return messageSchema(v.message)
  }
}

/** The fields of a message, inline structs flattened into it (`Volume`'s `VolumeSource`). */
const collectFields = (plan: MessagePlan, into: Record<string, FieldSchema>): void => {
  const key = tagKeyOf(plan.name)
  for (const f of plan.fields) {
    if (f.inline) {
      if (f.value._tag === "message") collectFields(f.value.message, into)
      continue
    }
    const field = withTags(fieldSchema(f), tagsOf(key, f.json))
    into[f.json] = field
    const renamed = renamedFields[key]?.[f.json]
    if (renamed !== undefined) into[renamed] = field
  }
}

const fieldSchema = (f: FieldPlan): FieldSchema => {
  const value = valueSchema(f.value)
  if (f.map) return FieldSchema.map(value)
  if (f.repeated && !(f.value._tag === "scalar" && f.value.type === "bytes")) return FieldSchema.array(value)
  return value
}

const messageSchema = (plan: MessagePlan): FieldSchema => {
  if (plan.name === objectMetaMessage) return objectMetaSchema
  const cached = built.get(plan.name)
  if (cached) return cached
  const fields: Record<string, FieldSchema> = {}
  const own = tagsOf(tagKeyOf(plan.name), "")
  const schema: FieldSchema = own === undefined ? { type: "object", goType: plan.goName, fields } : { type: "object", goType: plan.goName, fields, patch: own }
  // Registered before its fields are built: a message may contain itself.
  built.set(plan.name, schema)
  collectFields(plan, fields)
  return schema
}

/** The schema of a top-level kind from its protobuf message (`k8s.io.api.core.v1.Pod`): the common envelope plus its fields. */
export const builtinKindSchema = (messageName: string): FieldSchema => {
  const plan = messagePlan(messageName)
  if (plan === undefined) throw new Error(`no protobuf message ${messageName}`)
  const fields: Record<string, FieldSchema> = {}
  collectFields(plan, fields)
  const { metadata: _m, ...own } = fields
  return kindSchema(own)
}

export const podSchema: FieldSchema = builtinKindSchema("k8s.io.api.core.v1.Pod")
export const nodeSchema: FieldSchema = builtinKindSchema("k8s.io.api.core.v1.Node")
export const namespaceSchema: FieldSchema = builtinKindSchema("k8s.io.api.core.v1.Namespace")
export const serviceSchema: FieldSchema = builtinKindSchema("k8s.io.api.core.v1.Service")
export const deploymentSchema: FieldSchema = builtinKindSchema("k8s.io.api.apps.v1.Deployment")
export const replicaSetSchema: FieldSchema = builtinKindSchema("k8s.io.api.apps.v1.ReplicaSet")
export const roleSchema: FieldSchema = builtinKindSchema("k8s.io.api.rbac.v1.Role")
export const clusterRoleSchema: FieldSchema = builtinKindSchema("k8s.io.api.rbac.v1.ClusterRole")
export const roleBindingSchema: FieldSchema = builtinKindSchema("k8s.io.api.rbac.v1.RoleBinding")
export const clusterRoleBindingSchema: FieldSchema = builtinKindSchema("k8s.io.api.rbac.v1.ClusterRoleBinding")
