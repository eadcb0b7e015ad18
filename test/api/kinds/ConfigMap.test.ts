import { describe, expect, it } from "@effect/vitest"
import { aggregate, formatFieldError } from "../../../src/api/FieldError.js"
import type { KObject } from "../../../src/api/Object.js"
import { configMapRules, maxSecretSize, validateConfigMap, validateConfigMapUpdate } from "../../../src/api/kinds/ConfigMap.js"
import { isConfigMapKey } from "../../../src/api/kinds/Names.js"
import { validateForCreate } from "../../../src/api/kinds/Validation.js"

const cm = (fields: Record<string, unknown>): KObject => ({ metadata: { name: "c", namespace: "default" }, ...fields })
const keyRegex =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"

describe("IsConfigMapKey", () => {
  it("accepts alphanumerics, '-', '_' and '.'", () => {
    for (const key of ["a", "key.name", "KEY_NAME", "key-name", ".hidden", "a..b", "x".repeat(253)]) expect(isConfigMapKey(key)).toEqual([])
  })

  it("refuses other characters, the empty key, '.', '..' and a '..' prefix, and more than 253 bytes", () => {
    expect(isConfigMapKey("bad key!")).toEqual([keyRegex])
    expect(isConfigMapKey("")).toEqual([keyRegex])
    expect(isConfigMapKey("é")).toEqual([keyRegex])
    expect(isConfigMapKey(".")).toEqual(["must not be '.'"])
    expect(isConfigMapKey("..")).toEqual(["must not be '..'"])
    expect(isConfigMapKey("..a")).toEqual(["must not start with '..'"])
    expect(isConfigMapKey("x".repeat(254))).toEqual(["must be no more than 253 characters"])
  })
})

describe("ValidateConfigMap", () => {
  it("sums data bytes (UTF-8) and binaryData's decoded bytes against MaxSecretSize, reported on the whole object", () => {
    expect(maxSecretSize).toBe(1_048_576)
    const half = Buffer.alloc(maxSecretSize / 2).toString("base64")
    expect(validateConfigMap(cm({ data: { a: "x".repeat(maxSecretSize / 2) }, binaryData: { b: half } }))).toEqual([])
    expect(aggregate(validateConfigMap(cm({ data: { a: "é".repeat(maxSecretSize / 4), b: "x" }, binaryData: { c: half } })))).toBe(
      "[]: Too long: must have at most 1048576 bytes"
    )
  })

  it("names each bad key with its map, and a key held by both maps", () => {
    expect(validateConfigMap(cm({ data: { "a b": "1", k: "2" }, binaryData: { k: "AA==", "/": "AA==" } })).map(formatFieldError)).toEqual([
      `data[a b]: Invalid value: "a b": ${keyRegex}`,
      'data[k]: Invalid value: "k": duplicate of key present in binaryData',
      `binaryData[/]: Invalid value: "/": ${keyRegex}`
    ])
  })

  it("runs after the ObjectMeta rules on the one validation path", () => {
    const errs = validateForCreate(configMapRules, true, { metadata: { name: "Bad_Name", namespace: "default" }, data: { "!": "" } })
    expect(errs.map((e) => e.field)).toEqual(["metadata.name", "data[!]"])
  })
})

describe("ValidateConfigMapUpdate", () => {
  const frozen = cm({ immutable: true, data: { k: "v" } })

  it("an immutable config map keeps its data, binaryData and immutability", () => {
    expect(validateConfigMapUpdate(cm({ immutable: true, data: { k: "v" } }), frozen)).toEqual([])
    expect(validateConfigMapUpdate(cm({ data: { k: "w" }, binaryData: { b: "AA==" } }), frozen).map(formatFieldError)).toEqual([
      "immutable: Forbidden: field is immutable when `immutable` is set",
      "data: Forbidden: field is immutable when `immutable` is set",
      "binaryData: Forbidden: field is immutable when `immutable` is set"
    ])
  })

  it("a mutable one is checked as a create, unless its values are the stored ones", () => {
    const old = cm({ data: { k: "v" } })
    expect(validateConfigMapUpdate(cm({ data: { "bad key": "v" } }), old).map((e) => e.field)).toEqual(["data[bad key]"])
    expect(validateConfigMapUpdate(cm({ data: old.data }), old)).toEqual([])
  })
})
