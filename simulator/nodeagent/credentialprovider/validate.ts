/**
 * Validation of a credential provider configuration (upstream
 * `pkg/credentialprovider/plugin/config.go` `validateCredentialProviderConfig`) and loading a file as the node agent
 * does at startup (`readCredentialProviderConfigFile`, then `RegisterCredentialProviderPlugins`).
 *
 * Messages are upstream's `field.Error` texts; the aggregate reads
 * `failed to validate credential provider config: <e>` (several: `[e1, e2]`). `locate` adds where the provider
 * is (`file:line:col`), which upstream cannot say.
 */
import { Either } from "effect"
import { formatDuration } from "../../../src/api/go/Duration.js"
import {
  type CredentialProvider,
  type CredentialProviderConfig,
  decodeCredentialProviderConfig,
  exchangeApiVersions
} from "./CredentialProviderConfig.js"
import { parseSchemelessURL } from "./MatchImages.js"

export interface ProviderError {
  /** Upstream's field error text. */
  readonly message: string
  /** The provider it is about (undefined: the whole file). */
  readonly provider?: CredentialProvider
}

const required = (path: string, detail: string) => `${path}: Required value: ${detail}`
const invalid = (path: string, value: string, detail: string) => `${path}: Invalid value: ${value}: ${detail}`

/** Every rule of upstream's validator, in its order. */
export const validateCredentialProviderConfig = (config: CredentialProviderConfig): ReadonlyArray<ProviderError> => {
  const errors: Array<ProviderError> = []
  if (config.providers.length === 0) errors.push({ message: required("providers", "at least 1 item in plugins is required") })
  for (const provider of config.providers) {
    const add = (message: string) => errors.push({ message, provider })
    const name = JSON.stringify(provider.name)
    if (provider.name.includes("/")) add(invalid("providers.name", name, "provider name cannot contain '/'"))
    if (provider.name.includes(" ")) add(invalid("providers.name", name, "provider name cannot contain spaces"))
    if (provider.name === ".") add(invalid("providers.name", name, "provider name cannot be '.'"))
    if (provider.name === "..") add(invalid("providers.name", name, "provider name cannot be '..'"))
    if (provider.apiVersion === "") add(required("providers.apiVersion", "apiVersion is required"))
    else if (!(exchangeApiVersions as ReadonlyArray<string>).includes(provider.apiVersion)) {
      add(`providers.apiVersion: Unsupported value: ${JSON.stringify(provider.apiVersion)}: supported values: ${exchangeApiVersions.map((v) => JSON.stringify(v)).join(", ")}`)
    }
    if (provider.matchImages.length === 0) add(required("providers.matchImages", "at least 1 item in matchImages is required"))
    for (const image of provider.matchImages) {
      const parsed = parseSchemelessURL(image)
      if (Either.isLeft(parsed)) add(invalid("providers.matchImages", JSON.stringify(image), `match image is invalid: ${parsed.left}`))
    }
    if (provider.defaultCacheDuration === undefined) add(required("providers.defaultCacheDuration", "defaultCacheDuration is required"))
    else if (provider.defaultCacheDuration < 0) {
      add(invalid("providers.defaultCacheDuration", formatDuration(provider.defaultCacheDuration), "defaultCacheDuration must be greater than or equal to 0"))
    }
  }
  return errors
}

/** `field.ErrorList.ToAggregate()`: one error as itself, several as `[e1, e2]`, duplicates removed. */
export const aggregate = (messages: ReadonlyArray<string>): string => {
  const unique = [...new Set(messages)]
  return unique.length === 1 ? unique[0]! : `[${unique.join(", ")}]`
}

export const validationFailure = (errors: ReadonlyArray<ProviderError>): string =>
  `failed to validate credential provider config: ${aggregate(errors.map((e) => e.message))}`

/** `file:line:col: <message>` where the provider's place is known, else `file: <message>`. */
export const locate = (file: string, error: ProviderError): string => {
  const p = error.provider?.position
  return p === undefined ? `${file}: ${error.message}` : `${file}:${p.line}:${p.column}: ${error.message}`
}

export interface CredentialProviderCheck {
  readonly config?: CredentialProviderConfig
  /** Located messages, one per problem (for `clustersim validate`). */
  readonly errors: ReadonlyArray<string>
}

/** What `clustersim validate` reports for a CredentialProviderConfig file. */
export const checkCredentialProviderConfig = (text: string, file: string): CredentialProviderCheck => {
  const decoded = decodeCredentialProviderConfig(text, file)
  if (Either.isLeft(decoded)) return { errors: [decoded.left] }
  const errors = validateCredentialProviderConfig(decoded.right)
  return { config: decoded.right, errors: errors.map((e) => locate(file, e)) }
}

/**
 * The node agent's startup read: upstream's single error (read, decode or the validation aggregate), or the
 * configuration. `readFile` is the host's reader (a failure's message is what follows the colon upstream).
 */
export const loadCredentialProviderConfig = (
  file: string,
  readFile: (file: string) => Either.Either<string, string>
): Either.Either<CredentialProviderConfig, string> => {
  if (file === "") return Either.left("credential provider config path is empty")
  const text = readFile(file)
  if (Either.isLeft(text)) return Either.left(`unable to read external registry credential provider configuration from ${JSON.stringify(file)}: ${text.left}`)
  return Either.flatMap(decodeCredentialProviderConfig(text.right, file), (config) => {
    const errors = validateCredentialProviderConfig(config)
    return errors.length > 0 ? Either.left(validationFailure(errors)) : Either.right(config)
  })
}
