/**
 * A modelled image registry: how long a pull takes (latency + bytes / bandwidth) and why it fails — an outage
 * (connection refused), its request limit (`429 Too Many Requests`), random server errors (`503`), and missing or
 * expired credentials (`401 Unauthorized`). The texts are the container runtime's (containerd through CRI), as the
 * node agent puts them into its `Failed` events and waiting messages.
 *
 * Tokens: a registry that `requiresAuth` accepts a password `token:<issuedAt>` it issued (`issueToken`) until
 * `tokenTtl` after issue, and none issued before the last `expireCredentials`. Times are virtual ms.
 */
import * as TokenBucket from "../../events/TokenBucket.js"
import type { SeededRandomService } from "../../kernel/SeededRandom.js"
import type { AuthConfig, Credentials } from "../credentialprovider/Keyring.js"
import type { RegistrySpec } from "./ImagesSpec.js"

export interface Interval {
  readonly from: number
  readonly to: number
}

export const registryDefaults = { latencyMs: 100, bandwidth: 50 * 2 ** 20, tokenTtlMs: 3_600_000 } as const

/** `registry.example/team/app:1` → repository `team/app`, reference `1` (a digest after `@`; default `latest`). */
export const splitImage = (image: string): { host: string; repository: string; reference: string } => {
  const slash = image.indexOf("/")
  const host = slash < 0 ? "docker.io" : image.slice(0, slash)
  let rest = slash < 0 ? image : image.slice(slash + 1)
  let reference = "latest"
  const at = rest.indexOf("@")
  if (at >= 0) {
    reference = rest.slice(at + 1)
    rest = rest.slice(0, at)
  } else {
    const colon = rest.lastIndexOf(":")
    if (colon >= 0) {
      reference = rest.slice(colon + 1)
      rest = rest.slice(0, colon)
    }
  }
  return { host, repository: rest, reference }
}

const tokenPrefix = "token:"

export class Registry {
  readonly host: string
  readonly latencyMs: number
  readonly bandwidth: number
  readonly requiresAuth: boolean
  readonly tokenTtlMs: number
  private readonly failureRate: number
  private readonly bucket: TokenBucket.TokenBucket
  private readonly outages: Array<Interval> = []
  /** When `expireCredentials` revokes (faults are known in advance, so a revocation may lie in the future). */
  private readonly revocations: Array<number> = []
  /** Pulls answered, by outcome. */
  readonly counts = { served: 0, outage: 0, throttled: 0, failed: 0, unauthorized: 0 }

  constructor(
    spec: RegistrySpec,
    private readonly random: SeededRandomService
  ) {
    this.host = spec.host
    this.latencyMs = spec.latency ?? registryDefaults.latencyMs
    this.bandwidth = spec.bandwidth ?? registryDefaults.bandwidth
    this.requiresAuth = spec.requiresAuth ?? false
    this.tokenTtlMs = spec.tokenTtl ?? registryDefaults.tokenTtlMs
    this.failureRate = spec.failureRate ?? 0
    this.bucket = TokenBucket.make(spec.qps ?? 0, spec.burst ?? Math.max(1, Math.ceil(spec.qps ?? 0)))
  }

  addOutage(window: Interval): void {
    this.outages.push(window)
  }

  /** From `at` on, tokens issued before `at` are refused. */
  expireCredentials(at: number): void {
    this.revocations.push(at)
  }

  down(t: number): boolean {
    for (const w of this.outages) if (t >= w.from && t < w.to) return true
    return false
  }

  /** What the credential plugin gets from the registry's token service at `now`. */
  issueToken(now: number): AuthConfig {
    return { username: "oauth2accesstoken", password: `${tokenPrefix}${now}` }
  }

  private tokenValid(auth: AuthConfig | undefined, t: number): boolean {
    if (auth === undefined || !auth.password.startsWith(tokenPrefix)) return false
    const issuedAt = Number(auth.password.slice(tokenPrefix.length))
    return t < issuedAt + this.tokenTtlMs && !this.revocations.some((at) => issuedAt < at && at <= t)
  }

  /** The time the layers of `bytes` take to arrive. */
  transferMs(bytes: number): number {
    return this.bandwidth > 0 ? (bytes * 1000) / this.bandwidth : 0
  }

  /**
   * Resolves `image` at `t` with `credentials` (keyed by registry host, as a keyring holds them): undefined when
   * the registry serves it, else the runtime's error text.
   */
  resolve(image: string, t: number, credentials: Credentials): string | undefined {
    const { repository, reference } = splitImage(image)
    const manifest = `https://${this.host}/v2/${repository}/manifests/${reference}`
    const prefix = `rpc error: code = Unknown desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}"`
    if (this.down(t)) {
      this.counts.outage++
      return `rpc error: code = Unavailable desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": failed to do request: Head "${manifest}": dial tcp: connect: connection refused`
    }
    if (!this.bucket.tryAccept(t)) {
      this.counts.throttled++
      return `${prefix}: unexpected status from HEAD request to ${manifest}: 429 Too Many Requests`
    }
    if (this.requiresAuth && !this.tokenValid(credentials[this.host], t)) {
      this.counts.unauthorized++
      return `${prefix}: failed to authorize: failed to fetch oauth token: unexpected status: 401 Unauthorized`
    }
    if (this.failureRate > 0 && this.random.next() < this.failureRate) {
      this.counts.failed++
      return `${prefix}: unexpected status from HEAD request to ${manifest}: 503 Service Unavailable`
    }
    this.counts.served++
    return undefined
  }
}
