/** What a kind adds beyond the common envelope: a field schema (for unknown-field checks) and validation. */
import type { FieldError } from "../FieldError.js"
import type { KObject } from "../Object.js"
import type { FieldSchema } from "./FieldSchema.js"
import type { NameRule } from "./Names.js"

export interface KindRules {
  /** Known fields and their types; absent means schemaless (no unknown-field or type checks). */
  readonly schema?: FieldSchema
  /** The rule names must follow; a DNS subdomain when absent. */
  readonly nameRule?: NameRule
  /** Defaults a decoded object gets on create and update (upstream's `SetDefaults_<Kind>`). */
  readonly defaults?: (obj: KObject) => KObject
  /** Field errors of a create, in upstream's order. */
  readonly validateCreate?: (obj: KObject) => ReadonlyArray<FieldError>
  /** Field errors of an update against the stored object, in upstream's order. */
  readonly validateUpdate?: (obj: KObject, old: KObject) => ReadonlyArray<FieldError>
}
