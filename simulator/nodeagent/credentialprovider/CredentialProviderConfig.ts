/**
 * The credential provider configuration, `CredentialProviderConfig` in `nodeagent.config.platform` (spec 001
 * "CredentialProviderConfig", "CredentialProvider"; upstream `pkg/credentialprovider/plugin/config.go`).
 *
 * Decoding is lenient, as upstream's (a universal decoder, not the strict one): unknown fields are ignored, while a
 * value of the wrong type fails the decode. Each provider keeps its position in the file so that validation
 * messages can say where it is.
 */
import { Either } from "effect"
import { readDocumentHeader } from "../config/DocumentHeader.js"
import { registeredKinds, schemeName } from "../config/decode.js"
import * as F from "../config/FieldCodec.js"
import { group } from "../config/NodeAgentConfiguration.js"

export const kind = "CredentialProviderConfig"
export { group }
/** The versions the scheme registers the kind in (`plugin/config.go`; v1 new in 1.26). */
export const versions = ["v1alpha1", "v1beta1", "v1"] as const

/** `providers[].apiVersion`: the exec exchange's version (upstream accepts all three; the spec names v1beta1). */
export const exchangeGroup = "credentialprovider.nodeagent.platform"
export const exchangeApiVersions = [`${exchangeGroup}/v1alpha1`, `${exchangeGroup}/v1beta1`, `${exchangeGroup}/v1`] as const

const execEnvVar = F.struct("ExecEnvVar", "v1beta1.ExecEnvVar", { name: F.string(), value: F.string() })

const providerCodec = F.struct("CredentialProvider", "v1beta1.CredentialProvider", {
  name: F.string(),
  matchImages: F.list(F.string()),
  defaultCacheDuration: F.duration,
  apiVersion: F.string(),
  args: F.list(F.string()),
  env: F.list(execEnvVar)
})

const documentCodec = F.struct(kind, `v1beta1.${kind}`, {
  apiVersion: F.string(),
  kind: F.string(),
  providers: F.list(providerCodec)
})

export interface ExecEnvVar {
  readonly name: string
  readonly value: string
}

/** Where a provider sits in the file (1-based), when known. */
export interface Position {
  readonly line: number
  readonly column: number
}

export interface CredentialProvider {
  readonly name: string
  readonly matchImages: ReadonlyArray<string>
  /** Milliseconds; undefined when the file does not set it (validation requires it). */
  readonly defaultCacheDuration: number | undefined
  readonly apiVersion: string
  readonly args: ReadonlyArray<string>
  readonly env: ReadonlyArray<ExecEnvVar>
  readonly position?: Position
}

export interface CredentialProviderConfig {
  readonly providers: ReadonlyArray<CredentialProvider>
}

/** Upstream `readCredentialProviderConfigFile` after the read: decode, then check kind and group. */
export const decodeCredentialProviderConfig = (text: string, file: string): Either.Either<CredentialProviderConfig, string> => {
  const decodeError = (e: string) => Either.left(`error decoding config ${file}: ${e}`)
  const header = readDocumentHeader(text)
  if (Either.isLeft(header)) return decodeError(header.left.error)
  const { root, ctx, groupVersion, group: docGroup, kind: docKind } = header.right
  if (!(registeredKinds.get(groupVersion) ?? []).includes(docKind)) {
    return decodeError(`no kind ${JSON.stringify(docKind)} is registered for version ${JSON.stringify(groupVersion)} in scheme ${JSON.stringify(schemeName)}`)
  }
  if (docKind !== kind) return Either.left(`failed to decode ${JSON.stringify(docKind)} (wrong Kind)`)
  if (docGroup !== group) return Either.left(`failed to decode CredentialProviderConfig, unexpected Group: ${docGroup}`)
  const document = documentCodec.decode(root, ctx, { path: "", goStruct: kind, goFields: [], node: root }) ?? {}
  const error = ctx.issues.find((i) => i.kind === "error")
  if (error !== undefined) {
    const where = error.line === undefined ? "" : ` (line ${error.line}, column ${error.column}, ${error.path})`
    return decodeError(error.message + where)
  }
  const items = F.itemsOf(root, ctx, "providers")
  return Either.right({
    providers: (document.providers ?? []).map((p, i) => {
      const position = items[i]
      return {
        name: p.name ?? "",
        matchImages: p.matchImages ?? [],
        defaultCacheDuration: p.defaultCacheDuration,
        apiVersion: p.apiVersion ?? "",
        args: p.args ?? [],
        env: (p.env ?? []).map((e) => ({ name: e.name ?? "", value: e.value ?? "" })),
        ...(position !== undefined ? { position } : {})
      }
    })
  })
}
