/**
 * The images on one node's disk, made of layers shared between images (a layer is stored once), and image
 * garbage collection as spec 001 describes it (`imageGCHighThresholdPercent`: collection always runs above this
 * disk usage; `imageGCLowThresholdPercent`: it never runs below, and frees down to it; `imageMinimumGCAge`: an
 * unused image younger than this is kept). As upstream's `realImageGCManager.freeSpace`
 * (`pkg/kubelet/images/image_gc_manager.go`): images in use are never removed; the others go least recently used
 * first (then earliest detected); a layer's bytes are freed when its last image goes.
 */
export interface Layer {
  readonly digest: string
  readonly size: number
}

interface StoredImage {
  readonly layers: ReadonlyArray<Layer>
  /** When the pull completes: before that the image is not usable. */
  readonly availableAt: number
  lastUsed: number
}

export interface ImageGCSettings {
  readonly capacityBytes: number
  readonly highThresholdPercent: number
  readonly lowThresholdPercent: number
  readonly minimumGCAgeMs: number
}

export class NodeImages {
  private readonly images = new Map<string, StoredImage>()
  /** Digest → number of images holding it. */
  private readonly layerRefs = new Map<string, { size: number; refs: number }>()
  private used = 0

  constructor(readonly gc: ImageGCSettings) {}

  /** Bytes of all layers on disk. */
  get usageBytes(): number {
    return this.used
  }

  get imageCount(): number {
    return this.images.size
  }

  /** When `image` is (or will be) usable; undefined if not on disk nor being pulled. */
  availableAt(image: string): number | undefined {
    return this.images.get(image)?.availableAt
  }

  /** Bytes a pull of `layers` must fetch: those not on disk yet (shared layers are reused). */
  missingBytes(layers: ReadonlyArray<Layer>): number {
    let bytes = 0
    for (const l of layers) if (!this.layerRefs.has(l.digest)) bytes += l.size
    return bytes
  }

  /** Stores `image`, usable from `availableAt`. */
  add(image: string, layers: ReadonlyArray<Layer>, availableAt: number): void {
    if (this.images.has(image)) return
    this.images.set(image, { layers, availableAt, lastUsed: availableAt })
    for (const l of layers) {
      const ref = this.layerRefs.get(l.digest)
      if (ref) ref.refs++
      else {
        this.layerRefs.set(l.digest, { size: l.size, refs: 1 })
        this.used += l.size
      }
    }
  }

  markUsed(image: string, t: number): void {
    const i = this.images.get(image)
    if (i) i.lastUsed = Math.max(i.lastUsed, t)
  }

  private remove(image: string): number {
    const i = this.images.get(image)
    if (i === undefined) return 0
    this.images.delete(image)
    let freed = 0
    for (const l of i.layers) {
      const ref = this.layerRefs.get(l.digest)!
      if (--ref.refs === 0) {
        this.layerRefs.delete(l.digest)
        this.used -= ref.size
        freed += ref.size
      }
    }
    return freed
  }

  /**
   * One GC pass at `now`: when usage is at or above the high threshold, frees down to the low threshold.
   * Returns the images removed (in removal order).
   */
  collect(now: number, inUse: ReadonlySet<string>): ReadonlyArray<string> {
    const { capacityBytes, highThresholdPercent, lowThresholdPercent, minimumGCAgeMs } = this.gc
    if (capacityBytes <= 0 || highThresholdPercent >= 100) return []
    const usagePercent = (this.used * 100) / capacityBytes
    if (usagePercent < highThresholdPercent) return []
    let toFree = this.used - (capacityBytes * lowThresholdPercent) / 100
    const candidates = [...this.images.entries()]
      .filter(([name, i]) => !inUse.has(name) && i.availableAt <= now && now - i.availableAt >= minimumGCAgeMs)
      .sort((a, b) => a[1].lastUsed - b[1].lastUsed || a[1].availableAt - b[1].availableAt)
    const removed: Array<string> = []
    for (const [name] of candidates) {
      if (toFree <= 0) break
      toFree -= this.remove(name)
      removed.push(name)
    }
    return removed
  }
}
