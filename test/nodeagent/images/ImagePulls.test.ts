import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { defaultNodeAgentConfiguration } from "../../../simulator/nodeagent/config/defaults.js"
import * as SeededRandom from "../../../simulator/kernel/SeededRandom.js"
import { ImagePulls } from "../../../simulator/nodeagent/images/ImagePulls.js"
import { ImagesSpec } from "../../../simulator/nodeagent/images/ImagesSpec.js"
import { Registry, splitImage } from "../../../simulator/nodeagent/images/Registry.js"

const decode = Schema.decodeUnknownSync(ImagesSpec)
const spec = (extra: Record<string, unknown> = {}) =>
  decode({
    registries: [{ host: "registry.example", latency: "100ms", bandwidth: "10Mi", requiresAuth: true, tokenTtl: "1h" }],
    images: [
      { name: "registry.example/app:1", layers: [{ digest: "base", size: "20Mi" }, { digest: "app", size: "10Mi" }] },
      { name: "registry.example/app:2", layers: [{ digest: "base", size: "20Mi" }, { digest: "app2", size: "5Mi" }] },
      { name: "registry.example/pause:3.9", layers: [{ digest: "pause", size: "1Mi" }], prePulled: true }
    ],
    pods: ["registry.example/pause:3.9", "registry.example/app:1"],
    credentialProvider: { matchImages: ["registry.example"], defaultCacheDuration: "10m", latency: "200ms" },
    ...extra
  })
const pulls = (s = spec()) => new ImagePulls(s, defaultNodeAgentConfiguration, SeededRandom.make(1), 0)
const pod = (n: string, image: string) => ({ key: `default/${n}`, uid: n, images: [image] })

describe("Registry", () => {
  it("splits image references", () => {
    expect(splitImage("registry.example:5000/team/app:1")).toStrictEqual({ host: "registry.example:5000", repository: "team/app", reference: "1" })
    expect(splitImage("r.io/app@sha256:ab")).toStrictEqual({ host: "r.io", repository: "app", reference: "sha256:ab" })
    expect(splitImage("r.io/app")).toStrictEqual({ host: "r.io", repository: "app", reference: "latest" })
  })

  it("answers 429 over its QPS, and refuses during an outage", () => {
    const r = new Registry({ host: "r.io", qps: 1, burst: 1 }, SeededRandom.make(1))
    expect(r.resolve("r.io/a:1", 0, {})).toBeUndefined()
    expect(r.resolve("r.io/a:1", 10, {})).toBe(
      'rpc error: code = Unknown desc = failed to pull and unpack image "r.io/a:1": failed to resolve reference "r.io/a:1": unexpected status from HEAD request to https://r.io/v2/a/manifests/1: 429 Too Many Requests'
    )
    r.addOutage({ from: 5_000, to: 6_000 })
    expect(r.resolve("r.io/a:1", 5_500, {})).toBe(
      'rpc error: code = Unavailable desc = failed to pull and unpack image "r.io/a:1": failed to resolve reference "r.io/a:1": failed to do request: Head "https://r.io/v2/a/manifests/1": dial tcp: connect: connection refused'
    )
    expect(r.counts).toStrictEqual({ served: 1, outage: 1, throttled: 1, failed: 0, unauthorized: 0 })
  })

  it("refuses a token issued before a revocation only from the revocation on (faults are applied in advance)", () => {
    const r = new Registry({ host: "r.io", requiresAuth: true, tokenTtl: 3_600_000 }, SeededRandom.make(1))
    const early = { "r.io": r.issueToken(1_000) }
    r.expireCredentials(90_000)
    expect(r.resolve("r.io/a:1", 89_999, early)).toBeUndefined()
    expect(r.resolve("r.io/a:1", 90_000, early)).toMatch(/: 401 Unauthorized$/)
    expect(r.resolve("r.io/a:1", 90_001, { "r.io": r.issueToken(90_000) })).toBeUndefined()
    expect(r.resolve("r.io/a:1", 100, {})).toMatch(/: 401 Unauthorized$/)
    expect(r.counts).toStrictEqual({ served: 2, outage: 0, throttled: 0, failed: 0, unauthorized: 2 })
  })
})

describe("ImagePulls: pulls with the modelled credential plugin and the provider cache", () => {
  it("a pre-pulled image starts at once; a pull costs plugin + latency + missing bytes / bandwidth", () => {
    const p = pulls()
    expect(p.ensurePod("n0", pod("a", "registry.example/pause:3.9"), 1_000)).toStrictEqual({ kind: "ready", at: 1_000, pulled: false })
    // 200 ms plugin, 100 ms latency, 30 Mi at 10 Mi/s
    expect(p.ensurePod("n0", pod("b", "registry.example/app:1"), 1_000)).toStrictEqual({ kind: "ready", at: 1_000 + 200 + 100 + 3_000, pulled: true })
    // the shared base layer is on disk: only 5 Mi; the credentials come from the node's cache
    expect(p.ensurePod("n0", pod("c", "registry.example/app:2"), 10_000)).toStrictEqual({ kind: "ready", at: 10_000 + 100 + 500, pulled: true })
    expect(p.result().credentialPlugin).toStrictEqual({ execs: 1, failures: 0, cacheHits: 1 })
  })

  it("expired registry credentials: 401 until the cached answer expires, then a new token and recovery", () => {
    const p = pulls()
    expect(p.ensurePod("n0", pod("a", "registry.example/app:1"), 0).kind).toBe("ready")
    p.applyFault({ type: "expire-registry-credentials", at: 60_000, registry: "registry.example" })
    const failed = p.ensurePod("n0", pod("b", "registry.example/app:2"), 120_000)
    expect(failed).toMatchObject({ kind: "waiting", reason: "ErrImagePull" })
    expect((failed as { message: string }).message).toMatch(/401 Unauthorized$/)
    // the cache (10 min from 200 ms) still holds the revoked token at 9 min
    expect(p.ensurePod("n0", pod("b", "registry.example/app:2"), 540_000)).toMatchObject({ kind: "waiting", reason: "ErrImagePull" })
    // after it expires the plugin runs again and the pull succeeds
    expect(p.ensurePod("n0", pod("b", "registry.example/app:2"), 700_000)).toMatchObject({ kind: "ready", pulled: true })
    expect(p.result().credentialPlugin.execs).toBe(2)
    expect(p.result().registries["registry.example"]).toMatchObject({ unauthorized: 2, served: 2 })
  })

  it("a registry outage: connection refused, back-off, recovery after the window", () => {
    const p = pulls(spec({ registries: [{ host: "registry.example" }], credentialProvider: undefined }))
    p.applyFault({ type: "registry-outage", at: 0, for: 30_000, registry: "registry.example" })
    expect(p.ensurePod("n0", pod("a", "registry.example/app:1"), 1_000)).toMatchObject({ kind: "waiting", reason: "ErrImagePull" })
    expect(p.ensurePod("n0", pod("a", "registry.example/app:1"), 5_000)).toMatchObject({ kind: "waiting", reason: "ImagePullBackOff" })
    expect(p.ensurePod("n0", pod("a", "registry.example/app:1"), 11_100)).toMatchObject({ kind: "waiting", reason: "ErrImagePull" })
    expect(p.ensurePod("n0", pod("a", "registry.example/app:1"), 40_000)).toMatchObject({ kind: "ready", pulled: true })
    p.podStarted("a", 40_000)
    const r = p.result()
    expect(r.events.byReason).toStrictEqual({ Pulling: 3, Failed: 2, BackOff: 1, Pulled: 1 })
    expect(r.podsWithPulls).toBe(1)
    expect(r.podStartup.withPulls.count).toBe(1)
    expect(r.lastFailureAt).toBe(11_200)
  })

  it("an image missing from the catalog is not found", () => {
    const p = pulls(spec({ credentialProvider: undefined, registries: [] }))
    expect(p.ensurePod("n0", pod("a", "elsewhere.io/x:1"), 0)).toMatchObject({
      kind: "waiting",
      message: 'rpc error: code = NotFound desc = failed to pull and unpack image "elsewhere.io/x:1": failed to resolve reference "elsewhere.io/x:1": "elsewhere.io/x:1": not found'
    })
  })
})
