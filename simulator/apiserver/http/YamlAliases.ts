/**
 * How much a YAML document's aliases add once expanded, measured without expanding them (docs/limits.md). An
 * anchor aliased 99 times turns a 3 MB request into a 300 MB object; stored, it fails every later list of its
 * kind. go-yaml bounds alias expansion by a ratio of decode steps (`allowedAliasRatio` in its `decode.go`) and
 * upstream relies on etcd's request limit beyond that; here a document's aliases may add at most the request
 * size limit to its JSON size, and are refused with go-yaml's text past it.
 */
import { type Alias, type Document, isAlias, isMap, isScalar, isSeq, visit } from "yaml"

/** go-yaml's texts, as `sigs.k8s.io/yaml` wraps them. */
export const excessiveAliasing = "error converting YAML to JSON: yaml: document contains excessive aliasing"
export const containsItself = (anchor: string) => `error converting YAML to JSON: yaml: anchor '${anchor}' value contains itself`

class ContainsItself {
  constructor(readonly anchor: string) {}
}

/**
 * The JSON size of `node`, aliases counted as their own text (`expand` false) or as what they stand for (`expand`
 * true, memoized per node so each anchor is measured once: linear in the document whatever its aliasing).
 */
const jsonSize = (doc: Document, expand: boolean) => {
  const targets = expand ? aliasTargets(doc) : new Map<Alias, unknown>()
  const sizes = new Map<unknown, number>()
  const open = new Set<unknown>()
  const size = (node: unknown): number => {
    if (node === null || node === undefined) return 4
    if (isAlias(node)) {
      if (!expand) return node.source.length + 1
      const target = targets.get(node)
      if (target === undefined) return 4
      if (open.has(target)) throw new ContainsItself(node.source)
      return size(target)
    }
    const known = sizes.get(node)
    if (known !== undefined) return known
    open.add(node)
    let n = 4
    if (isScalar(node)) n = String(node.value).length + 2
    else if (isMap(node)) {
      n = 2
      for (const pair of node.items) n += size(pair.key) + size(pair.value) + 2
    } else if (isSeq(node)) {
      n = 2
      for (const item of node.items) n += size(item) + 1
    }
    open.delete(node)
    sizes.set(node, n)
    return n
  }
  return size(doc.contents)
}

/**
 * What each alias stands for: the last node before it with its anchor, found in one walk of the document.
 * (`Alias.resolve(doc)` walks the whole document per alias: 2,000 aliases took seconds.)
 */
const aliasTargets = (doc: Document): Map<Alias, unknown> => {
  const anchored = new Map<string, unknown>()
  const targets = new Map<Alias, unknown>()
  visit(doc, {
    Node: (_key, node) => {
      if (isAlias(node)) targets.set(node, anchored.get(node.source))
      else if ((isScalar(node) || isMap(node) || isSeq(node)) && node.anchor) anchored.set(node.anchor, node)
    }
  })
  return targets
}

/** Why `doc`'s aliases cannot be expanded within `limit` extra bytes (go-yaml's text), or undefined when they can. */
export const aliasExpansionProblem = (doc: Document, limit: number): string | undefined => {
  try {
    const expanded = jsonSize(doc, true)
    return expanded - jsonSize(doc, false) > limit ? excessiveAliasing : undefined
  } catch (e) {
    if (e instanceof ContainsItself) return containsItself(e.anchor)
    throw e
  }
}
