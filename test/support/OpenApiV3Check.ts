/**
 * A manifest checked against upstream's OpenAPI v3 component schemas (test/fixtures/upstream-openapi/), as strict
 * field validation and kube-openapi's validator would (`k8s.io/kube-openapi/pkg/validation/validate`): the kind found
 * by its `x-kubernetes-group-version-kind`, `$ref`/`allOf`/`oneOf`, types and integer formats, `required`, unknown
 * fields refused (`strict decoding error: unknown field "…"`), keys of `x-kubernetes-list-type: map` lists and
 * items of `set` lists unique. Allowed values that upstream's Go validation checks (the 1.26 documents carry no
 * `enum`) come in as a table keyed `<definition>.<property>`. Messages follow kube-openapi's wording; pure.
 */
import { readFileSync } from "node:fs"

export interface Schema {
  readonly $ref?: string
  readonly allOf?: ReadonlyArray<Schema>
  readonly oneOf?: ReadonlyArray<Schema>
  readonly type?: string
  readonly format?: string
  readonly properties?: Readonly<Record<string, Schema>>
  readonly additionalProperties?: Schema | boolean
  readonly required?: ReadonlyArray<string>
  readonly items?: Schema
  readonly enum?: ReadonlyArray<unknown>
  readonly "x-kubernetes-group-version-kind"?: ReadonlyArray<{ group: string; version: string; kind: string }>
  readonly "x-kubernetes-preserve-unknown-fields"?: boolean
  readonly "x-kubernetes-list-type"?: string
  readonly "x-kubernetes-list-map-keys"?: ReadonlyArray<string>
}

export type Schemas = Readonly<Record<string, Schema>>

/** The component schemas of one or more OpenAPI v3 documents, merged (shared meta definitions are identical). */
export const loadSchemas = (...files: ReadonlyArray<string>): Schemas =>
  Object.assign({}, ...files.map((f) => (JSON.parse(readFileSync(f, "utf8")) as { components: { schemas: Schemas } }).components.schemas))

/** Allowed values by `<definition>.<property>` (e.g. `io.k8s.api.batch.v1.JobSpec.completionMode`). */
export type Enums = Readonly<Record<string, ReadonlyArray<string>>>

const refName = (ref: string) => ref.replace(/^#\/components\/schemas\//, "")

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

const typeOf = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v

const int32 = { min: -(2 ** 31), max: 2 ** 31 - 1 }

/** The definition name of a kind: the schema whose `x-kubernetes-group-version-kind` names it. */
export const definitionOf = (schemas: Schemas, apiVersion: string, kind: string): string | undefined => {
  const slash = apiVersion.indexOf("/")
  const [group, version] = slash < 0 ? ["", apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)]
  return Object.keys(schemas).find((name) => (schemas[name]!["x-kubernetes-group-version-kind"] ?? []).some((g) => g.group === group && g.version === version && g.kind === kind))
}

/** Every problem of `value` against the definition `root`, as `path: message` (empty: valid). */
export const checkValue = (schemas: Schemas, root: string, value: unknown, enums: Enums = {}): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const at = (path: string, key: string) => (path === "" ? key : `${path}.${key}`)

  const walk = (schema: Schema, v: unknown, path: string, definition: string | undefined): void => {
    if (schema.$ref !== undefined) {
      const name = refName(schema.$ref)
      const target = schemas[name]
      if (target === undefined) throw new Error(`no schema ${name} (the fixture was trimmed too far)`)
      return walk(target, v, path, name)
    }
    for (const part of schema.allOf ?? []) walk(part, v, path, definition)
    if (schema.oneOf !== undefined) {
      const passing = schema.oneOf.filter((alt) => checkAlone(alt, v).length === 0).length
      if (passing !== 1) problems.push(`${path} in body must match exactly one schema in oneOf`)
      return
    }
    if (schema.type !== undefined && !typeMatches(schema.type, v)) {
      problems.push(`${path} in body must be of type ${schema.type}: "${typeOf(v)}"`)
      return
    }
    if (schema.type === "integer" && typeof v === "number" && schema.format === "int32" && (v < int32.min || v > int32.max))
      problems.push(`${path} in body must be of type int32: "${v}"`)
    if (schema.format === "date-time" && typeof v === "string" && Number.isNaN(Date.parse(v))) problems.push(`${path} in body must be of type date-time: "${v}"`)
    if (schema.enum !== undefined && !schema.enum.includes(v)) problems.push(`${path} in body should be one of [${schema.enum.join(" ")}]`)
    if (isObject(v)) walkObject(schema, v, path, definition)
    if (Array.isArray(v) && schema.items !== undefined) {
      v.forEach((item, i) => walk(schema.items!, item, `${path}[${i}]`, undefined))
      walkListType(schema, v, path)
    }
  }

  const walkObject = (schema: Schema, v: Record<string, unknown>, path: string, definition: string | undefined) => {
    for (const name of schema.required ?? []) if (!(name in v)) problems.push(`${at(path, name)}: Required value`)
    if (schema["x-kubernetes-preserve-unknown-fields"] === true) return
    const properties = schema.properties
    const additional = schema.additionalProperties
    for (const [key, field] of Object.entries(v)) {
      const fieldSchema = properties?.[key]
      if (fieldSchema !== undefined) {
        const allowed = definition === undefined ? undefined : enums[`${definition}.${key}`]
        if (allowed !== undefined && !allowed.includes(field as string))
          problems.push(`${at(path, key)}: Unsupported value: ${JSON.stringify(field)}: supported values: ${allowed.map((a) => JSON.stringify(a)).join(", ")}`)
        walk(fieldSchema, field, at(path, key), undefined)
      } else if (typeof additional === "object") walk(additional, field, at(path, key), undefined)
      else if (properties !== undefined && additional !== true) problems.push(`unknown field "${at(path, key)}"`)
    }
  }

  const walkListType = (schema: Schema, v: ReadonlyArray<unknown>, path: string) => {
    const listType = schema["x-kubernetes-list-type"]
    const keyOf =
      listType === "map"
        ? (item: unknown) => JSON.stringify((schema["x-kubernetes-list-map-keys"] ?? []).map((k) => (isObject(item) ? item[k] : undefined)))
        : listType === "set"
          ? (item: unknown) => JSON.stringify(item)
          : undefined
    if (keyOf === undefined) return
    const seen = new Set<string>()
    v.forEach((item, i) => {
      const key = keyOf(item)
      if (seen.has(key)) problems.push(`${path}[${i}]: Duplicate value: ${key}`)
      seen.add(key)
    })
  }

  /** A oneOf alternative on its own (its problems do not count unless none or several match). */
  const checkAlone = (alt: Schema, v: unknown): ReadonlyArray<string> => {
    const saved = problems.length
    walk(alt, v, "", undefined)
    return problems.splice(saved)
  }

  walk({ $ref: `#/components/schemas/${root}` }, value, "", undefined)
  return problems
}

const typeMatches = (type: string, v: unknown): boolean => {
  switch (type) {
    case "object":
      return isObject(v)
    case "array":
      return Array.isArray(v)
    case "string":
      return typeof v === "string"
    case "integer":
      return typeof v === "number" && Number.isInteger(v)
    case "number":
      return typeof v === "number"
    case "boolean":
      return typeof v === "boolean"
    default:
      return true
  }
}

/** A manifest against the schemas: its kind's definition found by apiVersion and kind, then every field. */
export const checkManifest = (schemas: Schemas, manifest: unknown, enums: Enums = {}): ReadonlyArray<string> => {
  if (!isObject(manifest) || typeof manifest.apiVersion !== "string" || typeof manifest.kind !== "string") return ["apiVersion and kind: Required value"]
  const definition = definitionOf(schemas, manifest.apiVersion, manifest.kind)
  if (definition === undefined) return [`no matches for kind "${manifest.kind}" in version "${manifest.apiVersion}"`]
  return checkValue(schemas, definition, manifest, enums)
}
