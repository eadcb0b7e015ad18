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
  /**
   * The kind's own validators apply the ObjectMeta rules, in their upstream place (events: after the legacy
   * rules); otherwise `Validation.ts` applies them before the kind's.
   */
  readonly validatesMetadata?: boolean
  /** Field errors of a create beyond the ObjectMeta rules, in upstream's order. */
  readonly validateCreate?: (obj: KObject) => ReadonlyArray<FieldError>
  /** Field errors of an update against the stored object beyond the ObjectMeta rules, in upstream's order. */
  readonly validateUpdate?: (obj: KObject, old: KObject) => ReadonlyArray<FieldError>
}
