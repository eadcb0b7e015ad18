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

/**
 * An image event as the node agent records it. Its message is built only when read (`imageEventMessage`): a run
 * counts every event but keeps few verbatim, and 150,000 pod starts make 150,000 `Pulled` events.
 */
export interface ImageEvent {
  readonly t: number
  readonly type: "Normal" | "Warning"
  readonly reason: "Pulling" | "Pulled" | "Failed" | "BackOff" | "ErrImageNeverPull"
  readonly image: string
  /** `Pulled` after a pull: its time and the time including waiting (ms). */
  readonly pulledIn?: { readonly pullMs: number; readonly totalMs: number }
  /** `Failed`: the pull's error. */
  readonly error?: string
}

/** The event's message, upstream's texts (`pkg/kubelet/images/image_manager.go`). */
export const imageEventMessage = (e: ImageEvent): string => {
  const image = JSON.stringify(e.image)
  switch (e.reason) {
    case "Pulling":
      return `Pulling image ${image}`
    case "Pulled":
      return e.pulledIn === undefined
        ? `Container image ${image} already present on machine`
        : `Successfully pulled image ${image} in ${formatDuration(e.pulledIn.pullMs)} (${formatDuration(e.pulledIn.totalMs)} including waiting)`
    case "Failed":
      return `Failed to pull image ${image}: ${e.error ?? ""}`
    case "BackOff":
      return backOffMessage(e.image)
    case "ErrImageNeverPull":
      return neverPullMessage(e.image)
  }
}

const backOffMessage = (image: string) => `Back-off pulling image ${JSON.stringify(image)}`
const neverPullMessage = (image: string) => `Container image ${JSON.stringify(image)} is not present with pull policy of Never`

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
    const event = (e: ImageEvent) => this.record(pod.key, e)
    const availableAt = this.disk.availableAt(image)
    const present = availableAt !== undefined
    if (policy === "Never" || (policy === "IfNotPresent" && present)) {
      if (present) {
        const at = Math.max(now, availableAt)
        this.disk.markUsed(image, at)
        event({ t: at, type: "Normal", reason: "Pulled", image })
        // an image another pod's pull brings in later: this pod waits for that pull too
        return { kind: "ready", at, pulled: availableAt > now }
      }
      event({ t: now, type: "Warning", reason: "ErrImageNeverPull", image })
      return { kind: "failed", at: now, reason: "ErrImageNeverPull", message: neverPullMessage(image) }
    }
    const backOffKey = `${pod.uid}_${image}`
    if (this.backoff.inBackOff(backOffKey, now)) {
      event({ t: now, type: "Normal", reason: "BackOff", image })
      return { kind: "failed", at: now, reason: "ImagePullBackOff", message: backOffMessage(image) }
    }
    event({ t: now, type: "Normal", reason: "Pulling", image })
    const start = this.settings.serializeImagePulls ? Math.max(now, this.pullerFreeAt) : now
    const result = this.bucket.tryAccept(start) ? this.pull(image, start) : { end: start, error: "pull QPS exceeded" }
    if (this.settings.serializeImagePulls) this.pullerFreeAt = result.end
    if (result.error !== undefined) {
      event({ t: result.end, type: "Warning", reason: "Failed", image, error: result.error })
      this.backoff.next(backOffKey, result.end)
      return { kind: "failed", at: result.end, reason: "ErrImagePull", message: result.error }
    }
    this.disk.add(image, this.layersOf(image), result.end)
    this.disk.markUsed(image, result.end)
    event({ t: result.end, type: "Normal", reason: "Pulled", image, pulledIn: { pullMs: result.end - start, totalMs: result.end - now } })
    this.backoff.gc(result.end)
    return { kind: "ready", at: result.end, pulled: true }
  }
}
