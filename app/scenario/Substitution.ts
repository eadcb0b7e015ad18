/**
 * `${VAR}` and `${VAR:-default}` in a scenario file, from the environment (docs/scenarios.md "Variables").
 *
 * Substituted in the parsed document's scalar values, not in the text before YAML reads it: a variable's value
 * cannot change the document's structure (a value holding `: `, `#` or a newline stays one string), comments are
 * never substituted, and every problem has its scalar's line. A plain scalar whose whole result is a YAML
 * number, boolean or null becomes that (`nodes: ${NODES:-2000}` is an integer), as if written there; a quoted one
 * stays a string. Keys are not substituted. As in the shell and Compose, `:-` also replaces an empty value;
 * `$${` is a literal `${`.
 */
import { isPair, isScalar, isSeq, parseDocument, visit, type Document } from "yaml"

export type Environment = Readonly<Record<string, string | undefined>>

export interface SubstitutionProblem {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
  /** Offset in the text of the `${`. */
  readonly offset: number
}

const reference = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/

type Substituted = { readonly value: string; readonly names: ReadonlyArray<string> } | { readonly problem: string; readonly name: string; readonly at: number }

/** One string's references replaced; `at` is the index of the offending `${`. */
export const substituteString = (s: string, env: Environment): Substituted => {
  let out = ""
  const names: Array<string> = []
  let i = 0
  while (i < s.length) {
    const dollar = s.indexOf("$", i)
    if (dollar < 0) {
      out += s.slice(i)
      break
    }
    out += s.slice(i, dollar)
    if (s.startsWith("$${", dollar)) {
      out += "${"
      i = dollar + 3
      continue
    }
    if (!s.startsWith("${", dollar)) {
      out += "$"
      i = dollar + 1
      continue
    }
    const m = reference.exec(s.slice(dollar))
    if (m === null) {
      const end = s.indexOf("}", dollar)
      const text = end < 0 ? s.slice(dollar) : s.slice(dollar, end + 1)
      return { problem: `invalid variable reference "${text}": expected \${NAME} or \${NAME:-default} (a literal "\${" is written "$\${")`, name: text, at: dollar }
    }
    const [whole, name, fallback] = m as unknown as [string, string, string | undefined]
    const set = env[name]
    if (fallback !== undefined) out += set === undefined || set === "" ? fallback : set
    else if (set === undefined) return { problem: `environment variable ${name} is not set (set it, or give a default: \${${name}:-value})`, name, at: dollar }
    else out += set
    names.push(name)
    i = dollar + whole.length
  }
  return { value: out, names }
}

/** A plain scalar's text as YAML's core schema reads it: a number, boolean or null, else the text itself. */
export const plainScalarValue = (text: string): unknown => {
  if (text.includes("\n") || text.includes("#")) return text
  const doc = parseDocument(text)
  if (doc.errors.length > 0 || !isScalar(doc.contents) || doc.contents.type !== "PLAIN") return text
  const v = doc.contents.value
  return typeof v === "number" || typeof v === "boolean" || v === null ? v : text
}

const pathOf = (ancestors: ReadonlyArray<unknown>, node: unknown): Array<string | number> => {
  const path: Array<string | number> = []
  ancestors.forEach((a, i) => {
    const next = ancestors[i + 1] ?? node
    if (isSeq(a)) path.push(a.items.indexOf(next as never))
    else if (isPair(a)) path.push(String(isScalar(a.key) ? a.key.value : a.key))
  })
  return path
}

/**
 * Replaces the references in `doc`'s scalar values in place. Returns the variables used (sorted, once each) and
 * the problems (an unset variable without a default, a malformed reference) with the offset of their `${`.
 */
export const substituteDocument = (
  doc: Document,
  text: string,
  env: Environment,
  /** Values a `--set` replaces: their references are never used, so an unset variable there is no problem. */
  replaced: (path: ReadonlyArray<string | number>) => boolean = () => false
): { readonly variables: ReadonlyArray<string>; readonly problems: ReadonlyArray<SubstitutionProblem> } => {
  const used = new Set<string>()
  const problems: Array<SubstitutionProblem> = []
  visit(doc, {
    Scalar(key, node, ancestors) {
      if (key === "key" || typeof node.value !== "string" || !node.value.includes("$")) return
      const r = substituteString(node.value, env)
      if ("problem" in r) {
        if (replaced(pathOf(ancestors, node))) return
        // the reference's own place in the source when it is there verbatim, else the scalar's start
        const [start, end] = node.range ?? [0, 0]
        const inSource = text.slice(start, end).indexOf(r.name.startsWith("${") ? r.name : "${" + r.name)
        problems.push({ path: pathOf(ancestors, node), message: r.problem, offset: inSource >= 0 ? start + inSource : start })
        return
      }
      r.names.forEach((n) => used.add(n))
      if (r.value === node.value) return
      node.value = node.type === "PLAIN" && r.names.length > 0 ? plainScalarValue(r.value) : r.value
    }
  })
  return { variables: [...used].sort(), problems }
}
