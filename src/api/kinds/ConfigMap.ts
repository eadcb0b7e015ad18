/**
 * `v1` ConfigMap: its three fields, typed as 1.26 decodes them (a wrong JSON type is a 400), and
 * `ValidateConfigMap` / `ValidateConfigMapUpdate` (`pkg/apis/core/validation/validation.go`): keys as
 * `IsConfigMapKey`, no key in both `data` and `binaryData`, at most `MaxSecretSize` bytes of values, and an
 * `immutable` config map's contents frozen.
 */
import { type FieldError, forbidden, invalid, noFieldErrors, tooLong } from "../FieldError.js"
import { isRecord, type KObject } from "../Object.js"
import { sameObject } from "../SameObject.js"
import { FieldSchema, kindSchema } from "./FieldSchema.js"
import type { KindRules } from "./KindRules.js"
import { isConfigMapKey } from "./Names.js"

export const configMapSchema: FieldSchema = kindSchema({
  data: FieldSchema.map(FieldSchema.string()),
  // []byte in Go: base64 text in JSON, named `[]uint8` in decode errors.
  binaryData: FieldSchema.map(FieldSchema.string("[]uint8")),
  immutable: FieldSchema.boolean()
})

/** `core.MaxSecretSize`: what a config map's (and a secret's) values may total, in bytes. */
export const maxSecretSize = 1024 * 1024

const entriesOf = (v: unknown): ReadonlyArray<readonly [string, unknown]> => (isRecord(v) ? Object.entries(v) : [])

/** Bytes a base64 text decodes to (Go counts `len([]byte)`, the decoded length). */
const base64Bytes = (text: string): number => {
  let n = text.length
  while (n > 0 && text.charCodeAt(n - 1) === 61) n--
  return Math.floor((n * 3) / 4)
}

/** `ValidateConfigMap` beyond ObjectMeta, in upstream order; Go's map order is random, insertion order here. */
export const validateConfigMap = (obj: KObject): ReadonlyArray<FieldError> => {
  const data = entriesOf(obj.data)
  const binary = entriesOf(obj.binaryData)
  if (data.length === 0 && binary.length === 0) return noFieldErrors
  const binaryKeys = isRecord(obj.binaryData) ? obj.binaryData : {}
  const errs: FieldError[] = []
  let total = 0
  for (const [key, value] of data) {
    for (const m of isConfigMapKey(key)) errs.push(invalid(`data[${key}]`, key, m))
    if (Object.hasOwn(binaryKeys, key)) errs.push(invalid(`data[${key}]`, key, "duplicate of key present in binaryData"))
    total += typeof value === "string" ? Buffer.byteLength(value, "utf8") : 0
  }
  for (const [key, value] of binary) {
    for (const m of isConfigMapKey(key)) errs.push(invalid(`binaryData[${key}]`, key, m))
    total += typeof value === "string" ? base64Bytes(value) : 0
  }
  // `field.NewPath("")`: the whole object, printed as `[]`.
  if (total > maxSecretSize) errs.push(tooLong("[]", maxSecretSize))
  return errs
}

const frozen = "field is immutable when `immutable` is set"

/** `ValidateConfigMapUpdate` beyond ObjectMeta: an immutable config map stays so, its data unchanged; then the create rules. */
export const validateConfigMapUpdate = (obj: KObject, old: KObject): ReadonlyArray<FieldError> => {
  const errs: FieldError[] = []
  if (old.immutable === true) {
    if (obj.immutable !== true) errs.push(forbidden("immutable", frozen))
    if (!sameObject(obj.data, old.data)) errs.push(forbidden("data", frozen))
    if (!sameObject(obj.binaryData, old.binaryData)) errs.push(forbidden("binaryData", frozen))
  }
  // Values shared with the stored object passed when it was stored.
  if (obj.data === old.data && obj.binaryData === old.binaryData) return errs.length === 0 ? noFieldErrors : errs
  const contents = validateConfigMap(obj)
  return errs.length === 0 ? contents : [...errs, ...contents]
}

export const configMapRules: KindRules = { schema: configMapSchema, validateCreate: validateConfigMap, validateUpdate: validateConfigMapUpdate }
