/**
 * Table column definitions (`meta/v1` `TableColumnDefinition`; every key written: its JSON tags have no omitempty)
 * and the descriptions printers share. Descriptions are upstream's API docs (`…SwaggerDoc()`), which clients
 * treat as opaque text.
 */

export interface ColumnDefinition {
  readonly name: string
  readonly type: "string" | "integer" | "number" | "boolean" | "date"
  readonly format: string
  readonly description: string
  readonly priority: number
}

export const column = (name: string, type: ColumnDefinition["type"], description: string, opts: { format?: string; priority?: number } = {}): ColumnDefinition => ({
  name,
  type,
  format: opts.format ?? "",
  description,
  priority: opts.priority ?? 0
})

/** `ObjectMeta.name` (apimachinery `types_swagger_doc_generated.go`, 1.26). */
export const nameDescription =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"

/** `ObjectMeta.creationTimestamp`. */
export const creationTimestampDescription =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"

export const nameColumn = column("Name", "string", nameDescription, { format: "name" })
export const ageColumn = column("Age", "string", creationTimestampDescription)
