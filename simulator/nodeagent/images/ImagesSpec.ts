/**
 * The `cluster.images` section of a scenario and its two fault kinds (docs/cluster.md "Image pulls"):
 * registries (latency, bandwidth, QPS limits, failures, authentication), images made of layers (shared between
 * images by digest), what the seeded pods run, the modelled credential plugin, and each node's image disk.
 */
import { Either, ParseResult, Schema } from "effect"
import { parseQuantity } from "../../../src/api/go/Quantity.js"
import { DurationMs } from "../../../src/api/go/Schemas.js"

/** A quantity (`100Mi`, `2Gi`, `1500000`) decoded to bytes. */
export const Bytes = Schema.transformOrFail(Schema.Union(Schema.String, Schema.Number), Schema.Number, {
  strict: true,
  decode: (s, _, ast) =>
    Either.match(parseQuantity(String(s)), {
      onLeft: (e) => Either.left(new ParseResult.Type(ast, s, e)),
      onRight: (q) => (q.value() >= 0 ? Either.right(q.value()) : Either.left(new ParseResult.Type(ast, s, "must not be negative")))
    }),
  encode: (n) => Either.right(String(n))
})

const Probability = Schema.Number.pipe(Schema.between(0, 1))

export const RegistrySpec = Schema.Struct({
  /** The registry host as images name it (`registry.example`, `registry.example:5000`). */
  host: Schema.String,
  /** Resolve + manifest round trips before the layers come. Default `100ms`. */
  latency: Schema.optional(DurationMs),
  /** Bytes per second one pull gets (a node's share of the registry). Default `50Mi`. */
  bandwidth: Schema.optional(Bytes),
  /** Pulls per second the registry accepts across the cluster (above: `429 Too Many Requests`). 0 = no limit. */
  qps: Schema.optional(Schema.NonNegative),
  burst: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  /** Share of pulls failing with `503 Service Unavailable` (drawn with the run's seed). */
  failureRate: Schema.optional(Probability),
  /** Pulls need a token from the credential plugin; without a valid one: `401 Unauthorized`. */
  requiresAuth: Schema.optional(Schema.Boolean),
  /** How long a token the registry issues stays valid. Default `1h`. */
  tokenTtl: Schema.optional(DurationMs)
})
export type RegistrySpec = typeof RegistrySpec.Type

export const LayerSpec = Schema.Struct({ digest: Schema.String, size: Bytes })

export const ImageSpec = Schema.Struct({
  /** The reference pods use (`registry.example/app:1`); its registry is the text before the first `/`. */
  name: Schema.String,
  /** Layers by digest; images naming the same digest share it on a node's disk. */
  layers: Schema.Array(LayerSpec),
  /** On every node's disk from the start (not collected while a pod uses it). */
  prePulled: Schema.optional(Schema.Boolean)
})
export type ImageSpec = typeof ImageSpec.Type

/** The credential plugin as the simulation models it (spec 001 CredentialProvider; upstream `plugin.go`'s cache). */
export const CredentialPluginSpec = Schema.Struct({
  name: Schema.optionalWith(Schema.String, { default: () => "registry-credential-provider" }),
  matchImages: Schema.Array(Schema.String),
  defaultCacheDuration: DurationMs,
  /** How long one exec takes. Default `200ms`. */
  latency: Schema.optional(DurationMs),
  /** Share of execs that fail (no credentials for that pull). */
  failureRate: Schema.optional(Probability),
  /** The response's cacheDuration; unset → the provider's defaultCacheDuration. */
  cacheDuration: Schema.optional(DurationMs),
  cacheKeyType: Schema.optionalWith(Schema.Literal("Image", "Registry", "Global"), { default: () => "Registry" as const })
})
export type CredentialPluginSpec = typeof CredentialPluginSpec.Type

export const ImagesSpec = Schema.Struct({
  registries: Schema.Array(RegistrySpec),
  images: Schema.Array(ImageSpec),
  /** The image of seeded pod i is `pods[i mod length]` (pulls follow the image's pull policy). */
  pods: Schema.Array(Schema.String),
  /** `Always`, `IfNotPresent`, `Never`; default as upstream: `Always` for `:latest` or no tag, else `IfNotPresent`. */
  pullPolicy: Schema.optional(Schema.Literal("Always", "IfNotPresent", "Never")),
  credentialProvider: Schema.optional(CredentialPluginSpec),
  /** Each node's image filesystem (image GC thresholds are percentages of it). Default `100Gi`. */
  disk: Schema.optional(Bytes)
})
export type ImagesSpec = typeof ImagesSpec.Type

/** The registry `registry` answers nothing (connection refused) from `at` for `for`. */
export const RegistryOutage = Schema.Struct({ type: Schema.Literal("registry-outage"), at: DurationMs, for: DurationMs, registry: Schema.String })
/** Every token `registry` issued before `at` stops being accepted (cached credentials then fail with 401). */
export const ExpireRegistryCredentials = Schema.Struct({ type: Schema.Literal("expire-registry-credentials"), at: DurationMs, registry: Schema.String })
export type RegistryFault = typeof RegistryOutage.Type | typeof ExpireRegistryCredentials.Type

/**
 * Why registry faults cannot act on `images` — one rule for `clustersim validate` and the cluster run: a registry
 * fault needs `cluster.images`, names one of its registries, and expiring credentials needs a registry that asks
 * for them (otherwise the fault would silently change nothing). `path` is within `faults[index]`.
 */
export const registryFaultProblems = (
  images: ImagesSpec | undefined,
  faults: ReadonlyArray<{ readonly type: string; readonly registry?: string }>
): Array<{ readonly index: number; readonly path: ReadonlyArray<string>; readonly message: string }> => {
  const out: Array<{ index: number; path: ReadonlyArray<string>; message: string }> = []
  faults.forEach((fault, index) => {
    if ((fault.type !== "registry-outage" && fault.type !== "expire-registry-credentials") || fault.registry === undefined) return
    if (images === undefined) {
      out.push({ index, path: ["type"], message: `"${fault.type}" needs cluster.images (the registries and images it acts on)` })
      return
    }
    const registry = images.registries.find((r) => r.host === fault.registry)
    if (registry === undefined) {
      const known = images.registries.map((r) => `"${r.host}"`).join(", ")
      out.push({ index, path: ["registry"], message: `"${fault.registry}" is not a registry of cluster.images.registries (${known === "" ? "none" : known})` })
    } else if (fault.type === "expire-registry-credentials" && registry.requiresAuth !== true) {
      out.push({ index, path: ["registry"], message: `"${fault.registry}" does not require credentials (requiresAuth), so expiring them changes nothing` })
    }
  })
  return out
}
