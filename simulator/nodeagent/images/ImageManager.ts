/**
 * One node agent's image manager (upstream `pkg/kubelet/images/image_manager.go` `EnsureImageExists`, the serial
 * and parallel pullers of `puller.go`, `throttleImagePulling` of `throttle.go`), in virtual time.
 *
 * For a container's image at `now`:
 * 1. pull policy (`Always`; `IfNotPresent`; `Never` → `ErrImageNeverPull`); an image on disk is used at once
 *    (`Pulled`: `Container image "x" already present on machine`);
 * 2. in back-off for `<pod uid>_<image>` → `BackOff` `Back-off pulling image "x"`, waiting reason `ImagePullBackOff`;
 * 3. else `Pulling` `Pulling image "x"`; the pull waits for the puller (`serializeImagePulls`: one at a time, in
 *    order), then the node's `registryPullQPS` / `registryBurst` bucket must have a token (else it fails at once
 *    with `pull QPS exceeded`), then the registry (and credentials) decide — see `PullFunction`;
 * 4. success → `Pulled` `Successfully pulled image "x" in <pull> (<pull incl. waiting> including waiting)`;
 *    failure → `Failed` `Failed to pull image "x": <err>`, back-off `next`, waiting reason `ErrImagePull`.
 * Image GC (NodeImages) runs every 5 minutes of virtual time, as upstream's `ImageGCPeriod`.
 *
 * Everything is decided when the pod worker asks (the outcome carries its time); the caller schedules what follows.
 */
import { formatDuration } from "../../../src/api/go/Duration.js"
import * as TokenBucket from "../../events/TokenBucket.js"
import type { Layer, NodeImages } from "./NodeImages.js"
import { PullBackoff } from "./PullBackoff.js"

export type PullPolicy = "Always" | "IfNotPresent" | "Never"

/** Upstream's default: `Always` for an image without tag or with `:latest`, else `IfNotPresent`. */
export const defaultPullPolicy = (image: string): PullPolicy => {
  if (image.includes("@")) return "IfNotPresent"
  const lastPart = image.slice(image.lastIndexOf("/") + 1)
  const colon = lastPart.lastIndexOf(":")
  return colon < 0 || lastPart.slice(colon + 1) === "latest" ? "Always" : "IfNotPresent"
}

export type WaitingReason = "ErrImagePull" | "ImagePullBackOff" | "ErrImageNeverPull"

export type EnsureOutcome =
  | { readonly kind: "ready"; readonly at: number; readonly pulled: boolean }
  | { readonly kind: "failed"; readonly at: number; readonly reason: WaitingReason; readonly message: string }

/** What the registry (with credentials) answers for a pull starting at `start`: when it ends, and its error. */
export type PullFunction = (image: string, start: number) => { readonly end: number; readonly error?: string }

export interface ImageEvent {
  readonly t: number
  readonly type: "Normal" | "Warning"
  readonly reason: "Pulling" | "Pulled" | "Failed" | "BackOff" | "ErrImageNeverPull"
  readonly message: string
}

export interface ImageManagerSettings {
  readonly serializeImagePulls: boolean
  readonly registryPullQPS: number
  readonly registryBurst: number
}

export const imageGCPeriodMs = 5 * 60_000

export class ImageManager {
  readonly backoff = new PullBackoff()
  private readonly bucket: TokenBucket.TokenBucket
  /** When the serial puller is free again. */
  private pullerFreeAt = Number.NEGATIVE_INFINITY
  private nextGC = Number.NEGATIVE_INFINITY

  constructor(
    readonly settings: ImageManagerSettings,
    readonly disk: NodeImages,
    private readonly layersOf: (image: string) => ReadonlyArray<Layer>,
    private readonly pull: PullFunction,
    private readonly record: (podKey: string, event: ImageEvent) => void,
    private readonly inUse: () => ReadonlySet<string>
  ) {
    this.bucket = TokenBucket.make(settings.registryPullQPS, settings.registryBurst)
  }

  ensureImage(pod: { readonly key: string; readonly uid: string }, image: string, policy: PullPolicy, now: number): EnsureOutcome {
    if (now >= this.nextGC) {
      this.disk.collect(now, this.inUse())
      this.nextGC = now + imageGCPeriodMs
    }
    const event = (t: number, type: ImageEvent["type"], reason: ImageEvent["reason"], message: string) => this.record(pod.key, { t, type, reason, message })
    const availableAt = this.disk.availableAt(image)
    const present = availableAt !== undefined
    if (policy === "Never" || (policy === "IfNotPresent" && present)) {
      if (present) {
        const at = Math.max(now, availableAt)
        this.disk.markUsed(image, at)
        event(at, "Normal", "Pulled", `Container image ${JSON.stringify(image)} already present on machine`)
        // an image another pod's pull brings in later: this pod waits for that pull too
        return { kind: "ready", at, pulled: availableAt > now }
      }
      const message = `Container image ${JSON.stringify(image)} is not present with pull policy of Never`
      event(now, "Warning", "ErrImageNeverPull", message)
      return { kind: "failed", at: now, reason: "ErrImageNeverPull", message }
    }
    const backOffKey = `${pod.uid}_${image}`
    if (this.backoff.inBackOff(backOffKey, now)) {
      const message = `Back-off pulling image ${JSON.stringify(image)}`
      event(now, "Normal", "BackOff", message)
      return { kind: "failed", at: now, reason: "ImagePullBackOff", message }
    }
    event(now, "Normal", "Pulling", `Pulling image ${JSON.stringify(image)}`)
    const start = this.settings.serializeImagePulls ? Math.max(now, this.pullerFreeAt) : now
    const result = this.bucket.tryAccept(start) ? this.pull(image, start) : { end: start, error: "pull QPS exceeded" }
    if (this.settings.serializeImagePulls) this.pullerFreeAt = result.end
    if (result.error !== undefined) {
      const message = result.error
      event(result.end, "Warning", "Failed", `Failed to pull image ${JSON.stringify(image)}: ${message}`)
      this.backoff.next(backOffKey, result.end)
      return { kind: "failed", at: result.end, reason: "ErrImagePull", message }
    }
    this.disk.add(image, this.layersOf(image), result.end)
    this.disk.markUsed(image, result.end)
    event(
      result.end,
      "Normal",
      "Pulled",
      `Successfully pulled image ${JSON.stringify(image)} in ${formatDuration(result.end - start)} (${formatDuration(result.end - now)} including waiting)`
    )
    this.backoff.gc(result.end)
    return { kind: "ready", at: result.end, pulled: true }
  }
}
