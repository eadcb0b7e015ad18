/** `v1` ConfigMap: its three fields, typed as 1.26 decodes them (a wrong JSON type is a 400). */
import { FieldSchema, kindSchema } from "./FieldSchema.js"
import type { KindRules } from "./KindRules.js"

export const configMapSchema: FieldSchema = kindSchema({
  data: FieldSchema.map(FieldSchema.string()),
  // []byte in Go: base64 text in JSON, named `[]uint8` in decode errors.
  binaryData: FieldSchema.map(FieldSchema.string("[]uint8")),
  immutable: FieldSchema.boolean()
})

export const configMapRules: KindRules = { schema: configMapSchema }
