/**
 * An applied configuration checked as the 1.26 API server converts it to a typed value before merging
 * (`kubernetes/apiserver: pkg/endpoints/handlers/fieldmanager/internal/structuredmerge.go` `ObjectToTyped`;
 * `structured-merge-diff` v4.2.3 `typed/validate.go`, `typed/helpers.go`): every element of a keyed list names
 * each key field, unless the key has a default, and no two elements have the same key. A failure is not a Status
 * error upstream, so it is a 500 without a reason carrying the raw text (`responsewriters/status.go`
 * `ErrorToAPIStatus`): `failed to create typed patch object (default/p; /v1, Kind=Pod): .spec.containers: element 0:
 * associative list with keys has an element that omits key field "name" (and doesn't have default value)`.
 *
 * Pure.
 */
import { goQuote } from "../go/Quote.js"
import { fieldOf, type FieldSchema, listSemantics } from "../kinds/FieldSchema.js"
import { isRecord, type KObject } from "../Object.js"
import { type ApiError, internal } from "../Status.js"

/** A `ValidationError`: where (`.spec.containers`) and what. */
interface Problem {
  readonly path: string
  readonly message: string
}

/** `value.ToString` of a key value: strings quoted, numbers and booleans as they are. */
const keyValueText = (v: unknown): string => (typeof v === "string" ? JSON.stringify(v) : String(v))

/** `PathElement.String` of a keyed element: `[containerPort=80,protocol="TCP"]`, fields sorted by name. */
const keyText = (fields: ReadonlyArray<readonly [string, unknown]>): string =>
  `[${[...fields].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${keyValueText(v)}`).join(",")}]`

const check = (value: unknown, schema: FieldSchema | undefined, path: string, out: Problem[]): void => {
  if (schema === undefined || value === null || value === undefined) return
  if (schema.type === "object" && isRecord(value)) {
    for (const k of Object.keys(value)) check(value[k], fieldOf(schema, k), `${path}.${k}`, out)
    return
  }
  if (schema.type === "map" && isRecord(value)) {
    for (const k of Object.keys(value)) check(value[k], schema.values, `${path}.${k}`, out)
    return
  }
  if (schema.type !== "array" || !Array.isArray(value)) return
  const semantics = listSemantics(schema)
  if (semantics.type !== "map") {
    if (semantics.type === "atomic") value.forEach((item, i) => check(item, schema.items, `${path}[${i}]`, out))
    return
  }
  const seen = new Set<string>()
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i]
    const problem = (message: string): void => void out.push({ path, message: `element ${i}: ${message}` })
    if (item === null) return problem("associative list with keys may not have a null element")
    if (!isRecord(item)) return problem("associative list with keys may not have non-map elements")
    const fields: Array<readonly [string, unknown]> = []
    for (const k of semantics.keys) {
      const v = item[k] !== undefined ? item[k] : semantics.keyDefaults?.[k]
      // Upstream stops at the first such element of a list: without its key nothing below it can be named.
      if (v === undefined) return problem(`associative list with keys has an element that omits key field ${goQuote(k)} (and doesn't have default value)`)
      fields.push([k, v])
    }
    const key = keyText(fields)
    if (seen.has(key)) out.push({ path, message: `duplicate entries for key ${key}` })
    seen.add(key)
    check(item, schema.items, `${path}${key}`, out)
  }
}

/** `ValidationErrors.Error`: one as `path: message`, several as an indented list under `errors:`. */
const errorText = (problems: ReadonlyArray<Problem>): string => {
  const one = (p: Problem) => (p.path === "" ? p.message : `${p.path}: ${p.message}`)
  return problems.length === 1 ? one(problems[0]!) : ["errors:", ...problems.map((p) => `  ${one(p)}`)].join("\n")
}

/** `objectGVKNN`: `<namespace>/<name>; <group>/<version>, Kind=<kind>`, from the configuration as sent. */
const describe = (config: KObject): string => {
  const apiVersion = String(config.apiVersion ?? "")
  const groupVersion = apiVersion.includes("/") ? apiVersion : `/${apiVersion}`
  return `${config.metadata.namespace ?? ""}/${config.metadata.name ?? ""}; ${groupVersion}, Kind=${String(config.kind ?? "")}`
}

/** The 500 upstream answers an apply whose configuration cannot be typed, or undefined when it can. */
export const typedPatchError = (config: KObject, schema: FieldSchema | undefined): ApiError | undefined => {
  const problems: Problem[] = []
  check(config, schema, "", problems)
  return problems.length === 0 ? undefined : internal(`failed to create typed patch object (${describe(config)}): ${errorText(problems)}`)
}
