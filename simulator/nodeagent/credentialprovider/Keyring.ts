/**
 * Credentials from plugins, cached (upstream `pkg/credentialprovider/plugin/plugin.go`
 * `pluginProvider.Provide` and `getCachedCredentials`, `keyring.go`).
 *
 * - A provider answers only for images one of its `matchImages` patterns matches.
 * - Its cache is keyed by the response's `cacheKeyType`: Image → the image, Registry → the registry (text before
 *   the first `/`), Global → one key. Lookups try image, registry, global in that order.
 * - `cacheDuration` 0 → not cached; absent → the provider's `defaultCacheDuration` (0 → not cached). An entry
 *   expires once the clock is past its expiry; expired entries are purged at most every 15 minutes.
 * - A plugin failure or an invalid `cacheKeyType` gives no credentials (upstream logs and goes on).
 * - Several providers combine; on the same auth key the earlier provider in the list wins (spec 001).
 *
 * `ProviderCache` is the pure part (time passed in); `makeProvider` / `provideCredentials` run plugins as effects
 * on the Effect `Clock`, so a simulation's virtual clock or the wall clock alike.
 */
import { Clock, Effect } from "effect"
import { matchesAny, registryOf } from "./MatchImages.js"

export type CacheKeyType = "Image" | "Registry" | "Global"

export interface AuthConfig {
  readonly username: string
  readonly password: string
}

/** Registry pattern → credentials (upstream `DockerConfig`). */
export type Credentials = Readonly<Record<string, AuthConfig>>

/** A decoded `CredentialProviderResponse`; `cacheDuration` in ms, undefined when the plugin gave none. */
export interface CredentialProviderResponse {
  readonly cacheKeyType: string
  readonly cacheDuration?: number
  readonly auth: Credentials
}

export const cachePurgeIntervalMs = 15 * 60_000
export const globalCacheKey = "global"

interface CacheEntry {
  readonly credentials: Credentials
  readonly expiresAt: number
}

export class ProviderCache {
  private readonly entries = new Map<string, CacheEntry>()
  private lastPurge: number

  constructor(
    /** The provider's `defaultCacheDuration` (ms). */
    readonly defaultCacheDurationMs: number,
    now: number
  ) {
    this.lastPurge = now
  }

  get size(): number {
    return this.entries.size
  }

  /** Cached credentials for `image`, by image, registry, then the global key. */
  lookup(image: string, now: number): Credentials | undefined {
    if (now > this.lastPurge + cachePurgeIntervalMs) {
      for (const [key, e] of this.entries) if (now > e.expiresAt) this.entries.delete(key)
      this.lastPurge = now
    }
    for (const key of [image, registryOf(image), globalCacheKey]) {
      const e = this.entries.get(key)
      if (e === undefined) continue
      // the expiration cache drops an expired entry when it is read
      if (now > e.expiresAt) this.entries.delete(key)
      else return e.credentials
    }
    return undefined
  }

  /** Keeps a plugin's answer as its cache rules say; returns its credentials, or undefined for a bad key type. */
  store(image: string, response: CredentialProviderResponse, now: number): Credentials | undefined {
    const key =
      response.cacheKeyType === "Image" ? image : response.cacheKeyType === "Registry" ? registryOf(image) : response.cacheKeyType === "Global" ? globalCacheKey : undefined
    if (key === undefined) return undefined
    const duration = response.cacheDuration ?? this.defaultCacheDurationMs
    if (duration > 0) this.entries.set(key, { credentials: response.auth, expiresAt: now + duration })
    return response.auth
  }
}

export interface CredentialProviderLike {
  readonly name: string
  readonly matchImages: ReadonlyArray<string>
  readonly defaultCacheDuration: number | undefined
}

export interface Provider<E> {
  readonly name: string
  readonly cache: ProviderCache
  /** Credentials for `image` ({} when the provider does not apply or its plugin failed). */
  readonly provide: (image: string) => Effect.Effect<Credentials, never>
  /** Plugin failures so far (upstream logs them). */
  readonly failures: ReadonlyArray<E>
}

const none: Credentials = {}

/** One provider: its patterns, its cache, and a way to run its plugin for an image. */
export const makeProvider = <E>(
  config: CredentialProviderLike,
  exec: (image: string) => Effect.Effect<CredentialProviderResponse, E>,
  now: number
): Provider<E> => {
  const cache = new ProviderCache(config.defaultCacheDuration ?? 0, now)
  const failures: Array<E> = []
  return {
    name: config.name,
    cache,
    failures,
    provide: (image) =>
      Effect.gen(function* () {
        if (!matchesAny(config.matchImages, image)) return none
        const cached = cache.lookup(image, yield* Clock.currentTimeMillis)
        if (cached !== undefined) return cached
        return yield* exec(image).pipe(
          Effect.flatMap((response) => Effect.map(Clock.currentTimeMillis, (t) => cache.store(image, response, t) ?? none)),
          Effect.catchAll((e) => Effect.sync(() => (failures.push(e), none)))
        )
      })
  }
}

/** Merges providers' answers in list order; an earlier provider's entry for a key is kept. */
export const combine = (answers: ReadonlyArray<Credentials>): Credentials => {
  const out: Record<string, AuthConfig> = {}
  for (const a of answers) for (const [key, auth] of Object.entries(a)) if (!(key in out)) out[key] = auth
  return out
}

/** Upstream `providersDockerKeyring.Lookup` before matching: every provider asked, in order. */
export const provideCredentials = <E>(providers: ReadonlyArray<Provider<E>>, image: string): Effect.Effect<Credentials> =>
  Effect.map(Effect.forEach(providers, (p) => p.provide(image)), combine)
