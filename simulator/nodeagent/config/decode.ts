/**
 * Reading a configuration file (reference §1.2; upstream `configfiles.go` and the codec it uses).
 *
 * YAML or JSON text (JSON is read as YAML). Steps, each with upstream's error text:
 * 1. an empty file is an error;
 * 2. `apiVersion` and `kind` are read first; missing or unregistered ones are errors;
 * 3. fields are decoded strictly: a type error fails the decode, while unknown and duplicate fields
 *    only make upstream decode again leniently and accept the result — here they are warnings.
 *
 * Every problem also comes back as a `DecodeIssue` with its field path and line/column.
 */
import { isMap, isScalar, LineCounter, parseAllDocuments, type Node, type YAMLError } from "yaml"
import { DecodeContext, type DecodeIssue } from "./FieldCodec.js"
import {
  apiVersion as configApiVersion,
  documentCodec,
  group,
  kind as configKind,
  type NodeAgentConfigurationDocument,
  serializedNodeConfigSourceKind,
  version
} from "./NodeAgentConfiguration.js"

export type { DecodeIssue } from "./FieldCodec.js"

/** Upstream names a scheme after the line creating it; this is that name in the simulator's naming. */
export const schemeName = "k8s.io/platform/pkg/nodeagent/apis/config/scheme/scheme.go:32"

/** Kinds the node agent's scheme knows, by `group/version` (CredentialProviderConfig shares the group). */
const registeredKinds: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  [`${group}/${version}`, [configKind, serializedNodeConfigSourceKind, "CredentialProviderConfig"]],
  [`${group}/v1`, ["CredentialProviderConfig"]]
])

export interface DecodeResult {
  /** The decoded document, when decoding succeeded (possibly leniently). */
  readonly document?: NodeAgentConfigurationDocument
  /** Upstream's error text when decoding failed: `failed to decode: …`, `node agent config file "f" was empty`. */
  readonly error?: string
  /** Every error and every unknown or duplicate field, with path and position where known. */
  readonly issues: ReadonlyArray<DecodeIssue>
  /** The strict error lenient decoding overrode: `strict decoding error: unknown field "foo", duplicate field "port"`. */
  readonly strictError?: string
}

/** How startup reports a decode failure. */
export const loadErrorMessage = (file: string, error: string): string =>
  `failed to load node agent config file ${file}, error ${error}`

/** The log line upstream writes when it falls back to lenient decoding. */
export const lenientDecodingLogLine = (strictError: string): string =>
  `"Using lenient decoding as strict decoding failed" err=${JSON.stringify(strictError)}`

const typeMetaStruct =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'

const failed = (error: string, issues: ReadonlyArray<DecodeIssue> = []): DecodeResult => ({ error, issues })

const jsonKindOf = (node: Node | null): string =>
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
const parseGroupVersion = (gv: string): { group: string; version: string } | undefined => {
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

/** Decodes a `NodeAgentConfiguration` file's text. `file` only appears in messages. */
export const decodeNodeAgentConfiguration = (text: string, file: string): DecodeResult => {
  if (text.length === 0) return failed(`node agent config file ${JSON.stringify(file)} was empty`)
  const lines = new LineCounter()
  // Text starting with `{` is read by upstream's JSON decoder, so it must be JSON (not just flow YAML).
  if (/^\s*\{/.test(text)) {
    const syntax = jsonSyntaxIssue(text)
    if (syntax) return failed(`failed to decode: ${syntax.message}`, [syntax])
  }
  // Only the first document counts, as with upstream's YAML reader; duplicate keys are found below.
  const docs = parseAllDocuments(text, { lineCounter: lines, uniqueKeys: false, prettyErrors: false })
  const doc = Array.isArray(docs) ? docs[0] : undefined
  if (doc && doc.errors.length > 0) {
    const issue = yamlSyntaxIssue(doc.errors[0]!, lines)
    return failed(`failed to decode: ${issue.message}`, [issue])
  }
  const ctx = new DecodeContext(doc, lines)
  const root = doc ? ctx.resolve(doc.contents) : null

  // apiVersion and kind first (upstream's meta factory), the last occurrence of each winning
  let apiVersion = ""
  let kind = ""
  if (root !== null && !(isScalar(root) && root.value === null)) {
    if (!isMap(root)) {
      return failed(
        `failed to decode: couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKindOf(root)} into Go value of type ${typeMetaStruct}`
      )
    }
    for (const pair of root.items) {
      const key = ctx.resolve(pair.key)
      const name = isScalar(key) ? String(key.value) : ""
      if (name !== "apiVersion" && name !== "kind") continue
      const value = ctx.resolve(pair.value)
      if (value === null || (isScalar(value) && value.value === null)) continue
      if (!isScalar(value) || typeof value.value !== "string") {
        const issue = {
          kind: "error" as const,
          path: name,
          message: `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKindOf(value)} into Go struct field .${name} of type string`
        }
        ctx.report(issue.kind, issue.path, issue.message, value)
        return failed(`failed to decode: ${issue.message}`, ctx.issues)
      }
      if (name === "apiVersion") apiVersion = value.value
      else kind = value.value
    }
  }
  const gv = parseGroupVersion(apiVersion)
  if (!gv) return failed(`failed to decode: unexpected GroupVersion string: ${apiVersion}`)
  if (kind === "") return failed(`failed to decode: Object 'Kind' is missing in '${text}'`)
  if (gv.version === "") return failed(`failed to decode: Object 'apiVersion' is missing in '${text}'`)
  const groupVersion = gv.group === "" ? gv.version : `${gv.group}/${gv.version}`
  if (!(registeredKinds.get(groupVersion) ?? []).includes(kind)) {
    return failed(
      `failed to decode: no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(groupVersion)} in scheme ${JSON.stringify(schemeName)}`
    )
  }
  if (groupVersion !== configApiVersion || kind !== configKind) {
    return failed(`failed to cast object to ${configKind}, unexpected type: ${groupVersion}, Kind=${kind}`)
  }

  const document = documentCodec.decode(root, ctx, { path: "", goStruct: configKind, goFields: [], node: root }) ?? {}
  const errors = ctx.issues.filter((i) => i.kind === "error")
  if (errors.length > 0) return failed(`failed to decode: ${errors[0]!.message}`, ctx.issues)
  const strict = ctx.issues.filter((i) => i.kind !== "error")
  if (strict.length === 0) return { document, issues: ctx.issues }
  return {
    document,
    issues: ctx.issues,
    strictError: `strict decoding error: ${strict.map((i) => i.message).join(", ")}`
  }
}
