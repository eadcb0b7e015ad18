/**
 * The first steps of reading any config document of the node agent's scheme (NodeAgentConfiguration,
 * CredentialProviderConfig): syntax check, the first YAML document, then `apiVersion` and `kind` read before any
 * other field, as upstream's meta factory does (`k8s.io/apimachinery/pkg/runtime/serializer/json/meta.go`).
 *
 * Errors are upstream's texts without the caller's prefix (`failed to decode: `, `error decoding config <f>: `).
 */
import { Either } from "effect"
import { isMap, isScalar, LineCounter, parseAllDocuments, type Node, type YAMLError } from "yaml"
import { DecodeContext, type DecodeIssue } from "./FieldCodec.js"

export interface DocumentHeader {
  readonly root: Node | null
  readonly ctx: DecodeContext
  /** As written (`group/version`, or `version` alone for the core group). */
  readonly groupVersion: string
  readonly group: string
  readonly version: string
  readonly kind: string
}

export interface HeaderError {
  readonly error: string
  readonly issues: ReadonlyArray<DecodeIssue>
}

const typeMetaStruct =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'

export const jsonKindOf = (node: Node | null): string =>
  node === null
    ? "null"
    : isMap(node)
      ? "object"
      : isScalar(node)
        ? typeof node.value === "number"
          ? "number"
          : typeof node.value === "boolean"
            ? "bool"
            : node.value === null
              ? "null"
              : "string"
        : "array"

/** Upstream `schema.ParseGroupVersion`. */
export const parseGroupVersion = (gv: string): { group: string; version: string } | undefined => {
  if (gv === "" || gv === "/") return { group: "", version: "" }
  const parts = gv.split("/")
  if (parts.length === 1) return { group: "", version: gv }
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! }
  return undefined
}

const yamlSyntaxIssue = (err: YAMLError, lines: LineCounter): DecodeIssue => {
  const pos = lines.linePos(err.pos[0])
  const message = `error converting YAML to JSON: yaml: line ${pos.line}: ${err.message.split("\n")[0]!.trim()}`
  return { kind: "error", path: "", message, line: pos.line, column: pos.col }
}

/** JSON syntax errors (JavaScript's wording; upstream prints Go's `invalid character …`). */
const jsonSyntaxIssue = (text: string): DecodeIssue | undefined => {
  try {
    JSON.parse(text)
    return undefined
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e)
    const at = /at position (\d+)/.exec(message)
    if (!at) return { kind: "error", path: "", message }
    const before = text.slice(0, Number(at[1]))
    const line = before.split("\n").length
    return { kind: "error", path: "", message, line, column: before.length - before.lastIndexOf("\n") }
  }
}

const failed = (error: string, issues: ReadonlyArray<DecodeIssue> = []): Either.Either<never, HeaderError> =>
  Either.left({ error, issues })

/** Parses `text` (YAML or JSON) and reads its `apiVersion` and `kind`; a missing one is an error. */
export const readDocumentHeader = (text: string): Either.Either<DocumentHeader, HeaderError> => {
  const lines = new LineCounter()
  // Text starting with `{` is read by upstream's JSON decoder, so it must be JSON (not just flow YAML).
  if (/^\s*\{/.test(text)) {
    const syntax = jsonSyntaxIssue(text)
    if (syntax) return failed(syntax.message, [syntax])
  }
  // Only the first document counts, as with upstream's YAML reader; duplicate keys are found by the field codecs.
  const docs = parseAllDocuments(text, { lineCounter: lines, uniqueKeys: false, prettyErrors: false })
  const doc = Array.isArray(docs) ? docs[0] : undefined
  if (doc && doc.errors.length > 0) {
    const issue = yamlSyntaxIssue(doc.errors[0]!, lines)
    return failed(issue.message, [issue])
  }
  const ctx = new DecodeContext(doc, lines)
  const root = doc ? ctx.resolve(doc.contents) : null

  // apiVersion and kind first, the last occurrence of each winning
  let apiVersion = ""
  let kind = ""
  if (root !== null && !(isScalar(root) && root.value === null)) {
    if (!isMap(root)) {
      return failed(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKindOf(root)} into Go value of type ${typeMetaStruct}`)
    }
    for (const pair of root.items) {
      const key = ctx.resolve(pair.key)
      const name = isScalar(key) ? String(key.value) : ""
      if (name !== "apiVersion" && name !== "kind") continue
      const value = ctx.resolve(pair.value)
      if (value === null || (isScalar(value) && value.value === null)) continue
      if (!isScalar(value) || typeof value.value !== "string") {
        const message = `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKindOf(value)} into Go struct field .${name} of type string`
        ctx.report("error", name, message, value)
        return failed(message, ctx.issues)
      }
      if (name === "apiVersion") apiVersion = value.value
      else kind = value.value
    }
  }
  const gv = parseGroupVersion(apiVersion)
  if (!gv) return failed(`unexpected GroupVersion string: ${apiVersion}`)
  if (kind === "") return failed(`Object 'Kind' is missing in '${text}'`)
  if (gv.version === "") return failed(`Object 'apiVersion' is missing in '${text}'`)
  const groupVersion = gv.group === "" ? gv.version : `${gv.group}/${gv.version}`
  return Either.right({ root, ctx, groupVersion, group: gv.group, version: gv.version, kind })
}
