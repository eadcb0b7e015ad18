/**
 * Image pulls across a simulated cluster: the registries and image catalog of `cluster.images`, an image manager
 * and image disk per node, each node's credential provider cache in front of the modelled credential plugin, the
 * registry faults, and what the run reports — pull and event counts, a per-minute timeline of pull events, and
 * pod start-up latency with and without image pulls (the SLO of ≤ 5 s p99 is for pods without pulls).
 *
 * The modelled plugin (spec 001 CredentialProvider; upstream `credentialprovider/plugin/plugin.go`): an exec takes
 * `latency`, fails with `failureRate`, and otherwise answers a token from the registry's token service with the
 * configured `cacheKeyType` / `cacheDuration`; the node's `ProviderCache` applies upstream's cache rules, so a token
 * revoked by `expire-registry-credentials` keeps failing pulls (401) until the cached answer expires.
 */
import { encodeHistogram, makeHistogram, recordMillis, summarize, type Histogram } from "../../../src/loadgen/LatencyRecorder.js"
import type { SeededRandomService } from "../../kernel/SeededRandom.js"
import type { NodeAgentConfiguration } from "../config/NodeAgentConfiguration.js"
import { ProviderCache, type Credentials } from "../credentialprovider/Keyring.js"
import { matchesAny, registryOf } from "../credentialprovider/MatchImages.js"
import { defaultPullPolicy, ImageManager, imageEventMessage, type ImageEvent, type PullFunction, type WaitingReason } from "./ImageManager.js"
import type { ImagesSpec, RegistryFault } from "./ImagesSpec.js"
import { NodeImages, type Layer } from "./NodeImages.js"
import { Registry, splitImage } from "./Registry.js"

export interface PodImages {
  readonly key: string
  readonly uid: string
  readonly images: ReadonlyArray<string>
}

export type PodImagesOutcome =
  | { readonly kind: "ready"; readonly at: number; readonly pulled: boolean }
  | { readonly kind: "waiting"; readonly at: number; readonly reason: WaitingReason; readonly message: string }

export const defaultDiskBytes = 100 * 2 ** 30
const pluginDefaults = { latencyMs: 200 } as const
/** Events kept verbatim in the result, the first of each reason (the counts cover all). */
const eventSamplePerReason = 25
const timelineStepMs = 60_000


interface NodePulls {
  readonly manager: ImageManager
  readonly credentials: ProviderCache | undefined
  readonly inUse: Set<string>
}

export class ImagePulls {
  private readonly registries = new Map<string, Registry>()
  private readonly layers = new Map<string, ReadonlyArray<Layer>>()
  private readonly nodes = new Map<string, NodePulls>()
  private readonly prePulled: ReadonlyArray<string>
  private readonly pluginRandom: SeededRandomService
  /** Pods (by uid) that needed a pull or failed one: reported apart from the SLO's pods without pulls. */
  private readonly pulledPods = new Set<string>()
  readonly startupWithoutPulls: Histogram = makeHistogram()
  readonly startupWithPulls: Histogram = makeHistogram()
  readonly counts = { podsStarted: 0, podsWithPulls: 0, pluginExecs: 0, pluginFailures: 0, credentialCacheHits: 0 }
  private readonly byReason: Record<string, number> = {}
  private readonly sample: Array<{ t: number; node: string; pod: string; reason: string; message: string }> = []
  private readonly timeline = new Map<number, Record<string, number>>()
  private lastFailureAt: number | undefined
  /** Told of every image event (the run's exported metrics, `NodeAgentExportedMetrics.ts`). */
  onEvent: ((e: ImageEvent) => void) | undefined = undefined
  /** Whether the credential plugin applies to an image (its patterns parsed once per image, not per pull). */
  private readonly pluginApplies = new Map<string, boolean>()

  constructor(
    readonly spec: ImagesSpec,
    private readonly nodeAgent: NodeAgentConfiguration,
    random: SeededRandomService,
    private readonly startMillis: number
  ) {
    for (const r of spec.registries) this.registries.set(r.host, new Registry(r, random.split(`registry-${r.host}`)))
    for (const i of spec.images) this.layers.set(i.name, i.layers)
    this.prePulled = spec.images.filter((i) => i.prePulled === true).map((i) => i.name)
    this.pluginRandom = random.split("credential-plugin")
  }

  /** The image seeded pod `index` of a node runs. */
  podImage(index: number): string {
    return this.spec.pods[index % this.spec.pods.length]!
  }

  applyFault(fault: RegistryFault): void {
    const registry = this.registryFor(fault.registry)
    const at = this.startMillis + fault.at
    if (fault.type === "registry-outage") registry.addOutage({ from: at, to: at + fault.for })
    else registry.expireCredentials(at)
  }

  private registryFor(host: string): Registry {
    let r = this.registries.get(host)
    if (r === undefined) {
      // an image from a registry the scenario does not describe: one without limits, failures or auth
      r = new Registry({ host }, this.pluginRandom.split(`registry-${host}`))
      this.registries.set(host, r)
    }
    return r
  }

  private nodePulls(node: string): NodePulls {
    let n = this.nodes.get(node)
    if (n !== undefined) return n
    const c = this.nodeAgent
    const disk = new NodeImages({
      capacityBytes: this.spec.disk ?? defaultDiskBytes,
      highThresholdPercent: c.imageGCHighThresholdPercent,
      lowThresholdPercent: c.imageGCLowThresholdPercent,
      minimumGCAgeMs: c.imageMinimumGCAge
    })
    for (const image of this.prePulled) disk.add(image, this.layers.get(image) ?? [], Number.NEGATIVE_INFINITY)
    const plugin = this.spec.credentialProvider
    const credentials = plugin === undefined ? undefined : new ProviderCache(plugin.defaultCacheDuration, this.startMillis)
    const inUse = new Set<string>(this.prePulled)
    const manager = new ImageManager(
      { serializeImagePulls: c.serializeImagePulls, registryPullQPS: c.registryPullQPS, registryBurst: c.registryBurst },
      disk,
      (image) => this.layers.get(image) ?? [],
      this.pullFunction(disk, credentials),
      (pod, e) => this.recordEvent(node, pod, e),
      () => inUse
    )
    n = { manager, credentials, inUse }
    this.nodes.set(node, n)
    return n
  }

  /** Credentials for `image` at `t` from the node's cache or the modelled plugin; when they are in hand. */
  private credentialsFor(cache: ProviderCache | undefined, image: string, t: number): { readonly at: number; readonly credentials: Credentials } {
    const plugin = this.spec.credentialProvider
    if (plugin === undefined || cache === undefined) return { at: t, credentials: {} }
    let applies = this.pluginApplies.get(image)
    if (applies === undefined) this.pluginApplies.set(image, (applies = matchesAny(plugin.matchImages, image)))
    if (!applies) return { at: t, credentials: {} }
    const cached = cache.lookup(image, t)
    if (cached !== undefined) {
      this.counts.credentialCacheHits++
      return { at: t, credentials: cached }
    }
    this.counts.pluginExecs++
    const at = t + (plugin.latency ?? pluginDefaults.latencyMs)
    if ((plugin.failureRate ?? 0) > 0 && this.pluginRandom.next() < plugin.failureRate!) {
      this.counts.pluginFailures++
      return { at, credentials: {} }
    }
    const host = registryOf(image)
    const response = {
      cacheKeyType: plugin.cacheKeyType,
      ...(plugin.cacheDuration !== undefined ? { cacheDuration: plugin.cacheDuration } : {}),
      auth: { [host]: this.registryFor(host).issueToken(at) }
    }
    return { at, credentials: cache.store(image, response, at) ?? {} }
  }

  private pullFunction(disk: NodeImages, cache: ProviderCache | undefined): PullFunction {
    return (image, start) => {
      const { at, credentials } = this.credentialsFor(cache, image, start)
      const registry = this.registryFor(splitImage(image).host)
      const layers = this.layers.get(image)
      if (layers === undefined) {
        return { end: at + registry.latencyMs, error: `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": "${image}": not found` }
      }
      const error = registry.resolve(image, at, credentials)
      if (error !== undefined) return { end: at + registry.latencyMs, error }
      return { end: Math.ceil(at + registry.latencyMs + registry.transferMs(disk.missingBytes(layers))) }
    }
  }

  private recordEvent(node: string, pod: string, e: ImageEvent): void {
    const seen = (this.byReason[e.reason] = (this.byReason[e.reason] ?? 0) + 1)
    if (seen <= eventSamplePerReason) this.sample.push({ t: e.t - this.startMillis, node, pod, reason: e.reason, message: imageEventMessage(e) })
    const step = Math.floor((e.t - this.startMillis) / timelineStepMs) * timelineStepMs
    let bucket = this.timeline.get(step)
    if (bucket === undefined) this.timeline.set(step, (bucket = {}))
    bucket[e.reason] = (bucket[e.reason] ?? 0) + 1
    if (e.reason === "Failed" || e.reason === "BackOff") this.lastFailureAt = Math.max(this.lastFailureAt ?? e.t, e.t)
    this.onEvent?.(e)
  }

  /**
   * The pod worker's image step for `pod` on `node` at `now`: every container's image in order. Ready: when the
   * last is usable (the containers start then). Waiting: the first failure, the reason and message of the
   * container's waiting state.
   */
  ensurePod(node: string, pod: PodImages, now: number): PodImagesOutcome {
    const n = this.nodePulls(node)
    let t = now
    let pulled = false
    for (const image of pod.images) {
      const policy = this.spec.pullPolicy ?? defaultPullPolicy(image)
      const out = n.manager.ensureImage(pod, image, policy, t)
      if (out.kind === "failed") {
        this.pulledPods.add(pod.uid)
        return { kind: "waiting", at: out.at, reason: out.reason, message: out.message }
      }
      pulled ||= out.pulled
      t = out.at
    }
    if (pulled) this.pulledPods.add(pod.uid)
    for (const image of pod.images) n.inUse.add(image)
    return { kind: "ready", at: t, pulled }
  }

  /** A pod (by uid) started `latencyMs` after it could (bound and its node registered). */
  podStarted(podUid: string, latencyMs: number): void {
    this.counts.podsStarted++
    if (this.pulledPods.has(podUid)) {
      this.counts.podsWithPulls++
      recordMillis(this.startupWithPulls, latencyMs)
    } else recordMillis(this.startupWithoutPulls, latencyMs)
  }

  /** The `images` part of the run's result (times in ms from the start of the run). */
  result() {
    const timeline = [...this.timeline.entries()].sort((a, b) => a[0] - b[0]).map(([t, counts]) => ({ t, ...counts }))
    const registries: Record<string, Registry["counts"]> = {}
    for (const [host, r] of this.registries) registries[host] = { ...r.counts }
    return {
      podsStarted: this.counts.podsStarted,
      podsWithPulls: this.counts.podsWithPulls,
      podStartup: {
        withoutPulls: { ...summarize(this.startupWithoutPulls), hdr: encodeHistogram(this.startupWithoutPulls) },
        withPulls: { ...summarize(this.startupWithPulls), hdr: encodeHistogram(this.startupWithPulls) }
      },
      events: { byReason: { ...this.byReason }, sample: this.sample, perMinute: timeline },
      lastFailureAt: this.lastFailureAt === undefined ? null : this.lastFailureAt - this.startMillis,
      registries,
      credentialPlugin: { execs: this.counts.pluginExecs, failures: this.counts.pluginFailures, cacheHits: this.counts.credentialCacheHits }
    }
  }
}

export type ImagePullsResult = ReturnType<ImagePulls["result"]>

/** The series name of pods that started without pulling an image (the pod-startup SLO's pods). */
export const withoutPullsSeries = "without-image-pulls"
export const withPullsSeries = "with-image-pulls"
