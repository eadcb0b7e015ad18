/**
 * The fields spec 001 marks required in a NodeAgentConfiguration ("Fields marked required must be present"):
 * `enableServer`, `reservedSystemCPUs`, `logging` and, inside them, the nested fields the spec's table marks.
 * Upstream does not check presence (its decoder fills zero values); clustersim follows the spec here, for
 * configuration files only: an inline `cluster.nodeAgent.config` in a scenario is a partial override of the
 * defaults (docs/cluster.md).
 *
 * A missing field reads `<file>:<line>:<col>: <path>: Required value`, located at the object lacking it.
 */
import { isMap, isSeq, isScalar, type Node, type YAMLMap } from "yaml"
import type { DecodeContext } from "./FieldCodec.js"

/**
 * `true`: the field must be there (not null); `{ fields }`: a required object, then its own required fields;
 * `{ items }`: an optional list whose items have required fields.
 */
type Rule = true | { readonly fields: Fields } | { readonly items: Fields }
type Fields = Readonly<Record<string, Rule>>

export const requiredFields: Fields = {
  enableServer: true,
  reservedSystemCPUs: true,
  logging: {
    fields: {
      format: true,
      flushFrequency: true,
      verbosity: true,
      vmodule: true,
      options: { fields: { json: { fields: { splitStream: true, infoBufferSize: true } } } }
    }
  },
  reservedMemory: { items: { numaNode: true, limits: true } },
  shutdownGracePeriodByPodPriority: { items: { priority: true, shutdownGracePeriodSeconds: true } }
}

const isNull = (n: Node | null): boolean => n === null || (isScalar(n) && n.value === null)

const presentFields = (map: YAMLMap, ctx: DecodeContext): Map<string, Node | null> => {
  const out = new Map<string, Node | null>()
  for (const pair of map.items) {
    const key = ctx.resolve(pair.key)
    if (isScalar(key)) out.set(String(key.value), ctx.resolve(pair.value))
  }
  return out
}

export interface MissingField {
  readonly path: string
  readonly line?: number
  readonly column?: number
}

/** Required fields missing (or null) in the document `root`, in the spec's order, nested ones included. */
export const missingRequiredFields = (root: Node | null, ctx: DecodeContext): ReadonlyArray<MissingField> => {
  const missing: Array<MissingField> = []
  const walk = (node: Node | null, fields: Fields, prefix: string): void => {
    if (!isMap(node)) return // a wrong type is the decoder's error
    const present = presentFields(node, ctx)
    for (const [name, rule] of Object.entries(fields)) {
      const path = prefix === "" ? name : `${prefix}.${name}`
      const value = present.get(name) ?? null
      if (rule !== true && "items" in rule) {
        if (isSeq(value)) value.items.forEach((item, i) => walk(ctx.resolve(item), rule.items, `${path}[${i}]`))
      } else if (isNull(value)) missing.push({ path, ...ctx.position(node) })
      else if (rule !== true) walk(value, rule.fields, path)
    }
  }
  walk(root, requiredFields, "")
  return missing
}

export const requiredMessage = (file: string, m: MissingField): string =>
  `${m.line === undefined ? file : `${file}:${m.line}:${m.column}`}: ${m.path}: Required value`
