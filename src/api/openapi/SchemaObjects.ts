/**
 * The per-kind field schemas (`src/api/kinds/FieldSchema.ts`, the table the decoder validates with) as OpenAPI
 * schema objects: every named Go struct becomes one definition, referenced where it is used, as upstream's
 * generator (`kube-openapi`) names them — `io.k8s.api.core.v1.PodSpec`,
 * `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`. Nothing here is written by hand per kind: a field added to
 * the table shows up in every document.
 *
 * The two dialects differ only in where references point (`#/definitions/` in v2, `#/components/schemas/` in
 * v3) and in how a reference carries a description (v2 beside it, v3 in an `allOf` as upstream's v3 does).
 */
import { descriptionOf } from "../kinds/Descriptions.js"
import type { FieldSchema, PatchTags } from "../kinds/FieldSchema.js"

export type Dialect = "v2" | "v3"

/** A JSON schema object as written into a document. */
export type SchemaObject = { readonly [key: string]: unknown }

/** `#/definitions/…` or `#/components/schemas/…`. */
export const refTo = (dialect: Dialect, name: string): string => `${dialect === "v2" ? "#/definitions/" : "#/components/schemas/"}${name}`

/** Upstream's package prefix of the apimachinery meta types. */
export const metaPackage = "io.k8s.apimachinery.pkg.apis.meta.v1"
const corePackage = "io.k8s.api.core.v1"

/**
 * Go struct names that live in another package than the kind using them. Types below one inherit its package
 * (`PodTemplateSpec` pulls `PodSpec`, `Container`, … into core), except the meta types, which are always meta.
 */
const metaTypes = new Set(["ObjectMeta", "ListMeta", "OwnerReference", "ManagedFieldsEntry", "LabelSelector", "LabelSelectorRequirement", "Status", "StatusDetails", "StatusCause"])
const coreTypes = new Set(["ObjectReference", "PodTemplateSpec", "LocalObjectReference", "TypedLocalObjectReference"])

/** Go types with their own JSON form, defined once as upstream does (`resource.Quantity` is a string). */
const specialDefinitions: Readonly<Record<string, { readonly name: string; readonly schema: SchemaObject }>> = {
  time: { name: `${metaPackage}.Time`, schema: { description: "Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.", type: "string", format: "date-time" } },
  microtime: { name: `${metaPackage}.MicroTime`, schema: { description: "MicroTime is version of Time with microsecond level precision.", type: "string", format: "date-time" } },
  raw: { name: `${metaPackage}.FieldsV1`, schema: { description: "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.", type: "object" } },
  quantity: { name: "io.k8s.apimachinery.pkg.api.resource.Quantity", schema: { description: "Quantity is a fixed-point representation of a number.", type: "string" } },
  "int-or-string": { name: "io.k8s.apimachinery.pkg.util.intstr.IntOrString", schema: { description: "IntOrString is a type that can hold an int32 or a string.", type: "string", format: "int-or-string" } },
  "raw-extension": { name: "io.k8s.apimachinery.pkg.runtime.RawExtension", schema: { description: "RawExtension is used to hold extensions in external versions.", type: "object" } }
}

const tagsOf = (s: FieldSchema): PatchTags | undefined => (s.type === "object" || s.type === "map" || s.type === "array" ? s.patch : undefined)

/**
 * Upstream's extensions for a field's patch tags (`kube-openapi` builder: struct tags `patchStrategy` /
 * `patchMergeKey`, markers `+listType`, `+listMapKey`, `+mapType`), on the property that carries them.
 */
const fieldExtensions = (tags: PatchTags | undefined): SchemaObject => {
  if (tags === undefined) return {}
  return {
    ...(tags.listMapKeys === undefined ? {} : { "x-kubernetes-list-map-keys": tags.listMapKeys }),
    ...(tags.listType === undefined ? {} : { "x-kubernetes-list-type": tags.listType }),
    ...(tags.mapType === undefined ? {} : { "x-kubernetes-map-type": tags.mapType }),
    ...(tags.patchMergeKey === undefined ? {} : { "x-kubernetes-patch-merge-key": tags.patchMergeKey }),
    ...(tags.patchStrategy === undefined ? {} : { "x-kubernetes-patch-strategy": tags.patchStrategy })
  }
}

/** `io.k8s.api.events.v1.Event` → `events/v1.Event`, the key of the descriptions (and patch tags) tables. */
const tableKeyOf = (definition: string): string => {
  const parts = definition.split(".")
  return `${parts[parts.length - 3]}/${parts[parts.length - 2]}.${parts[parts.length - 1]}`
}

/** The descriptions of one definition: its own (`""`) and its fields'. */
type Described = (field: string) => string | undefined
const undescribed: Described = () => undefined

/**
 * Collects the definitions of a set of kinds. `add` converts one root (a kind's schema) under the given name and
 * package; the nested named structs are added as they are met. A name met twice keeps its first schema (the
 * table shares one `ObjectMeta`, one `OwnerReference`, …).
 */
export class DefinitionSet {
  readonly definitions = new Map<string, SchemaObject>()

  constructor(readonly dialect: Dialect) {}

  /** A kind's root schema as the definition `name`, with extra keys (the GVK extension) merged in. */
  add(name: string, pkg: string, schema: FieldSchema, extra: SchemaObject = {}): void {
    if (this.definitions.has(name)) return
    // Reserve the name first: a recursive type refers back to itself.
    this.definitions.set(name, {})
    const key = tableKeyOf(name)
    this.definitions.set(name, { ...this.inline(schema, pkg, (field) => descriptionOf(key, field)), ...extra })
  }

  /** A definition written directly (types with no fields of their own, like `Patch`). */
  define(name: string, schema: SchemaObject): void {
    this.definitions.set(name, schema)
  }

  /** The schema object of a property: a reference for a named struct or special type, inline otherwise. */
  private property(s: FieldSchema, pkg: string, described?: string): SchemaObject {
    const named = this.namedRef(s, pkg)
    if (named === undefined) return { ...(described === undefined ? {} : { description: described }), ...this.inline(s, pkg) }
    // A struct field's own tags (`retainKeys` on `DeploymentSpec.strategy`) sit beside the reference.
    const extensions = s.type === "object" ? fieldExtensions({ patchStrategy: tagsOf(s)?.patchStrategy }) : {}
    const head = described === undefined ? {} : { description: described }
    if (Object.keys(head).length === 0 && Object.keys(extensions).length === 0) return { $ref: named }
    return this.dialect === "v2" ? { ...head, $ref: named, ...extensions } : { ...head, allOf: [{ $ref: named }], ...extensions }
  }

  /** A reference to `s`'s definition (adding it), or undefined for a type written inline. */
  private namedRef(s: FieldSchema, pkg: string): string | undefined {
    const special =
      s.type === "time" || s.type === "microtime" || s.type === "raw" ? specialDefinitions[s.type] : s.type === "any" && s.format !== undefined ? specialDefinitions[s.format] : undefined
    if (special) {
      if (!this.definitions.has(special.name)) this.definitions.set(special.name, special.schema)
      return refTo(this.dialect, special.name)
    }
    if (s.type !== "object" || !s.goType) return undefined
    const short = s.goType.slice(s.goType.lastIndexOf(".") + 1)
    const own = metaTypes.has(short) ? metaPackage : coreTypes.has(short) ? corePackage : pkg
    const name = `${own}.${short}`
    this.add(name, own, s)
    return refTo(this.dialect, name)
  }

  /** `described` gives the texts of an object's own description and of its fields (a definition's). */
  private inline(s: FieldSchema, pkg: string, described: Described = undescribed): SchemaObject {
    const description = described("")
    const head: SchemaObject = description === undefined ? {} : { description }
    switch (s.type) {
      case "string":
        return { ...head, type: "string" }
      case "integer":
        return { ...head, type: "integer", format: s.format ?? "int64" }
      case "boolean":
        return { ...head, type: "boolean" }
      case "number":
        return { ...head, type: "number", format: "double" }
      case "any":
        return { ...head, "x-kubernetes-preserve-unknown-fields": true }
      case "time":
      case "microtime":
      case "raw":
        return { ...head, $ref: this.namedRef(s, pkg) }
      case "map":
        return { ...head, type: "object", additionalProperties: this.property(s.values, pkg), ...fieldExtensions(tagsOf(s)) }
      case "array":
        return { ...head, type: "array", items: this.property(s.items, pkg), ...fieldExtensions(tagsOf(s)) }
      case "object": {
        const properties: Record<string, SchemaObject> = {}
        for (const key of Object.keys(s.fields).sort()) properties[key] = this.property(s.fields[key]!, pkg, described(key))
        return {
          ...head,
          type: "object",
          properties,
          // A kind whose own fields are not described keeps whatever it is sent (upstream's CRD convention).
          ...(s.rest === undefined ? {} : s.rest.type === "any" ? { "x-kubernetes-preserve-unknown-fields": true } : { additionalProperties: this.property(s.rest, pkg) }),
          // `+structType=atomic` is the type's own marker; upstream writes it as a map type.
          ...(tagsOf(s)?.structType === undefined ? {} : { "x-kubernetes-map-type": tagsOf(s)!.structType })
        }
      }
    }
  }

  /** The definitions sorted by name, as upstream's documents list them. */
  sorted(): Record<string, SchemaObject> {
    return Object.fromEntries([...this.definitions.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  }
}
