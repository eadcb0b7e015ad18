/**
 * Reading a configuration file (upstream `configfiles.go` and the codec it uses).
 *
 * YAML or JSON text (JSON is read as YAML). Steps, each with upstream's error text:
 * 1. an empty file is an error;
 * 2. `apiVersion` and `kind` are read first; missing or unregistered ones are errors;
 * 3. fields are decoded strictly: a type error fails the decode, while unknown and duplicate fields
 *    only make upstream decode again leniently and accept the result — here they are warnings.
 *
 * Every problem also comes back as a `DecodeIssue` with its field path and line/column.
 */
import { Either } from "effect"
import { goQuote } from "../../../src/api/go/Quote.js"
import { readDocumentHeader } from "./DocumentHeader.js"
import type { DecodeIssue } from "./FieldCodec.js"
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
export const registeredKinds: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  [`${group}/${version}`, [configKind, serializedNodeConfigSourceKind, "CredentialProviderConfig"]],
  [`${group}/v1alpha1`, ["CredentialProviderConfig"]],
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
  `"Using lenient decoding as strict decoding failed" err=${goQuote(strictError)}`

const failed = (error: string, issues: ReadonlyArray<DecodeIssue> = []): DecodeResult => ({ error, issues })

/** Decodes a `NodeAgentConfiguration` file's text. `file` only appears in messages. */
export const decodeNodeAgentConfiguration = (text: string, file: string): DecodeResult => {
  if (text.length === 0) return failed(`node agent config file ${JSON.stringify(file)} was empty`)
  const header = readDocumentHeader(text)
  if (Either.isLeft(header)) return failed(`failed to decode: ${header.left.error}`, header.left.issues)
  const { root, ctx, groupVersion, kind } = header.right
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
