/**
 * The protobuf messages of the served kinds, compiled once into plans the codec walks (`Codec.ts`).
 *
 * The message texts (`schema/*.ts`) carry upstream's field numbers and types, plus two options for how
 * Go's JSON sees a field, which the wire alone does not say:
 * - `(keep_zero)`: a scalar Go writes in JSON even when zero (a pointer, or no `omitempty`). Upstream's
 *   protobuf writer sends every non-pointer scalar, zero or not, so a decoded zero is dropped unless the field
 *   keeps it: `replicas: 0` stays, an empty `generateName` goes, as upstream's JSON would show them.
 * - `(inline)`: a struct embedded inline (`Volume`'s `VolumeSource`, `Probe`'s `ProbeHandler`): its fields sit
 *   in the parent's JSON object.
 *
 * Messages with their own JSON form (`kubernetes/apimachinery`: `pkg/apis/meta/v1/time_proto.go`,
 * `micro_time_proto.go`, `pkg/api/resource/quantity_proto.go`, `pkg/util/intstr`, `pkg/runtime`'s
 * `RawExtension`, `FieldsV1`) are mapped by hand: see {@link SpecialKind}.
 */
import protobuf from "protobufjs"
import { proto as appsV1 } from "./schema/apps.v1.js"
import { proto as authenticationV1, protoV1alpha1 as authenticationV1alpha1, protoV1beta1 as authenticationV1beta1 } from "./schema/authentication.v1.js"
import { proto as autoscalingV1 } from "./schema/autoscaling.v1.js"
import { proto as authorizationV1 } from "./schema/authorization.v1.js"
import { proto as coordinationV1 } from "./schema/coordination.v1.js"
import { proto as coreV1 } from "./schema/core.v1.js"
import { proto as eventsV1 } from "./schema/events.v1.js"
import { proto as intstr } from "./schema/intstr.js"
import { proto as metaV1 } from "./schema/meta.v1.js"
import { proto as policyV1 } from "./schema/policy.v1.js"
import { proto as rbacV1 } from "./schema/rbac.v1.js"
import { proto as resource } from "./schema/resource.js"
import { proto as runtime } from "./schema/runtime.js"

/** Wire types of the scalar fields upstream uses. */
export type ScalarType = "string" | "bool" | "int32" | "int64" | "uint32" | "uint64" | "bytes" | "double" | "float"

/** Messages whose JSON is not an object of their fields. */
export type SpecialKind = "time" | "microtime" | "quantity" | "intOrString" | "fieldsV1" | "rawExtension"

const specialMessages: Readonly<Record<string, SpecialKind>> = {
  "k8s.io.apimachinery.pkg.apis.meta.v1.Time": "time",
  "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime": "microtime",
  "k8s.io.apimachinery.pkg.api.resource.Quantity": "quantity",
  "k8s.io.apimachinery.pkg.util.intstr.IntOrString": "intOrString",
  "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1": "fieldsV1",
  "k8s.io.apimachinery.pkg.runtime.RawExtension": "rawExtension"
}

export type ValuePlan =
  | { readonly _tag: "scalar"; readonly type: ScalarType }
  | { readonly _tag: "special"; readonly kind: SpecialKind }
  | { readonly _tag: "message"; readonly message: MessagePlan }

export interface FieldPlan {
  /** The JSON key (upstream's `json:` tag). */
  readonly json: string
  readonly id: number
  readonly value: ValuePlan
  readonly repeated: boolean
  /** `map<string, V>`: the value plan is V. */
  readonly map: boolean
  readonly keepZero: boolean
  readonly inline: boolean
  /** The field's tag as written: `(id << 3) | wireType`. */
  readonly tag: number
}

export interface MessagePlan {
  /** Full name without the leading dot: `k8s.io.api.core.v1.Pod`. */
  readonly name: string
  /** Short name as Go's error texts print it: `v1.Pod`. */
  readonly goName: string
  readonly fields: ReadonlyArray<FieldPlan>
  readonly byJson: ReadonlyMap<string, FieldPlan>
  readonly byId: ReadonlyMap<number, FieldPlan>
  readonly inlines: ReadonlyArray<FieldPlan>
}

const wireTypeOf = (v: ValuePlan, repeatedOrMap: boolean): number => {
  if (repeatedOrMap && v._tag !== "scalar") return 2
  if (v._tag !== "scalar") return 2
  switch (v.type) {
    case "string":
    case "bytes":
      return 2
    case "double":
      return 1
    case "float":
      return 5
    default:
      return 0
  }
}

let loaded: protobuf.Root | undefined
const plans = new Map<string, MessagePlan>()

const root = (): protobuf.Root => {
  if (loaded) return loaded
  const r = new protobuf.Root()
  for (const text of [metaV1, runtime, intstr, resource, coreV1, appsV1, coordinationV1, eventsV1, policyV1, rbacV1, authorizationV1, authenticationV1, authenticationV1beta1, authenticationV1alpha1, autoscalingV1]) protobuf.parse(text, r, { keepCase: true })
  r.resolveAll()
  loaded = r
  return r
}

const planOf = (type: protobuf.Type): MessagePlan => {
  const name = type.fullName.slice(1)
  const existing = plans.get(name)
  if (existing) return existing
  const fields: FieldPlan[] = []
  const byJson = new Map<string, FieldPlan>()
  const byId = new Map<number, FieldPlan>()
  const inlines: FieldPlan[] = []
  const versionPackage = type.parent?.name ?? ""
  const plan: MessagePlan = { name, goName: `${versionPackage}.${type.name}`, fields, byJson, byId, inlines }
  // Registered before the fields are planned: messages refer to themselves (JSONSchemaProps-like trees).
  plans.set(name, plan)
  for (const f of type.fieldsArray) {
    const resolved = f.resolvedType
    let value: ValuePlan
    if (resolved instanceof protobuf.Type) {
      const special = specialMessages[resolved.fullName.slice(1)]
      value = special ? { _tag: "special", kind: special } : { _tag: "message", message: planOf(resolved) }
    } else value = { _tag: "scalar", type: f.type as ScalarType }
    const options = f.options ?? {}
    const isMap = f instanceof protobuf.MapField
    const field: FieldPlan = {
      json: typeof options.json_name === "string" ? options.json_name : f.name,
      id: f.id,
      value,
      repeated: f.repeated,
      map: isMap,
      keepZero: options["(keep_zero)"] === true,
      inline: options["(inline)"] === true,
      tag: (f.id << 3) | wireTypeOf(value, f.repeated || isMap)
    }
    fields.push(field)
    byId.set(field.id, field)
    if (field.inline) inlines.push(field)
    else byJson.set(field.json, field)
  }
  return plan
}

/** The plan of a message by full name (`k8s.io.api.core.v1.Pod`); `undefined` for a name not in the schema. */
export const messagePlan = (name: string): MessagePlan | undefined => {
  const cached = plans.get(name)
  if (cached) return cached
  const type = root().lookup(name)
  return type instanceof protobuf.Type ? planOf(type) : undefined
}
