/**
 * The server memory side of a relist (docs/watchlist.md "The cost model"): what the API server holds for the reads
 * that (re)build a client's state while it answers them, summed over the reads in flight; the peak is a cluster result
 * (`serverModel.relistMemory`) and a threshold target (`server_relist_memory_peak`).
 *
 * - A LIST buffers its whole response: kube-apiserver 1.26–1.27 encodes the list into one buffer before writing it
 *   (`endpoints/handlers/responsewriters`; json/protobuf `Encode` of the whole `*List`). From the watch cache
 *   (`storage/cacher/cacher.go` `GetList` unless `shouldDelegateList`: rv "0", or rv N without limit) the items are
 *   the cache's own objects and the response is every matching object — the cache ignores `limit` (1.26–1.27), so
 *   client-go's pager gets one page of everything. From etcd (rv unset, a `limit` with rv ≠ "0", a `continue`,
 *   `Exact`) the server holds the page as etcd returned it and the encoded response: twice the page's bytes, one
 *   page (`limit` objects) at a time.
 * - A WatchList streams (KEP-3157): the initial events come from the cache's snapshot one at a time
 *   (`cacher/watch_cache_interval.go`) into the watcher's result channel, whose capacity bounds what is queued —
 *   `suggestedWatchChannelSize` in `watch_cache.go`, at most `maxWatchChanSizeWithoutIndex` = 100 events. So a
 *   stream holds at most 100 objects' bytes, whatever the size of the collection.
 *
 * Object bytes are their JSON length (`JsonLength.ts`); the objects the watch cache keeps anyway are not counted.
 * Each read holds its bytes from its dispatch to its end in the service-time model (virtual ms); the peak is a sweep
 * over those intervals.
 */

/** Upstream `maxWatchChanSizeWithoutIndex` (`storage/cacher/watch_cache.go`): a cacheWatcher's largest result channel. */
export const WatchChannelSize = 100

/** Where a LIST is answered from, as the cacher decides (`ResourceVersion.ts` `planList` is the same table). */
export type ListSource = "cache" | "storage"

/** Bytes a LIST holds while it is answered: its encoded response, and from etcd the page etcd returned too. */
export const listHeldBytes = (responseBytes: number, source: ListSource): number => (source === "storage" ? 2 * responseBytes : responseBytes)

/** Bytes a WatchList holds while it streams `objects` initial events of `bytes` in all: a full result channel of them. */
export const watchListHeldBytes = (objects: number, bytes: number): number =>
  objects <= WatchChannelSize ? bytes : Math.round((bytes / objects) * WatchChannelSize)

export type RelistRead = "list" | "watchList"

/** The peak and what made it, for the result. */
export interface RelistMemoryReport {
  /** Largest sum of bytes held at once by the reads in flight. */
  readonly peakBytes: number
  /** When that was (ms since the start of the run); 0 when nothing was held. */
  readonly peakAtMs: number
  /** Reads at the peak, by kind. */
  readonly atPeak: { readonly lists: number; readonly watchLists: number }
  /** Reads modelled over the run, by kind, and the largest a single one held. */
  readonly lists: { readonly count: number; readonly largestBytes: number }
  readonly watchLists: { readonly count: number; readonly largestBytes: number }
}

/** The reads' held bytes over time; `peak` sweeps them. Reads may be recorded in any order. */
export class RelistMemory {
  private readonly starts: Array<number> = []
  private readonly ends: Array<number> = []
  private readonly bytes: Array<number> = []
  private readonly kinds: Array<RelistRead> = []

  /** A read that held `bytes` from `start` to `end` (ms). */
  record(kind: RelistRead, start: number, end: number, bytes: number): void {
    if (bytes <= 0) return
    this.starts.push(start)
    this.ends.push(Math.max(start, end))
    this.bytes.push(bytes)
    this.kinds.push(kind)
  }

  get size(): number {
    return this.starts.length
  }

  /** The peak; times relative to `originMs`. A read ending at the instant another starts does not overlap it. */
  report(originMs: number): RelistMemoryReport {
    const n = this.starts.length
    // ends before starts at the same instant: [start, end) intervals
    const order = Array.from({ length: 2 * n }, (_, i) => i).sort((a, b) => {
      const ta = a < n ? this.starts[a]! : this.ends[a - n]!
      const tb = b < n ? this.starts[b]! : this.ends[b - n]!
      return ta !== tb ? ta - tb : (a < n ? 1 : 0) - (b < n ? 1 : 0)
    })
    let held = 0
    let lists = 0
    let watchLists = 0
    let peak = { bytes: 0, at: originMs, lists: 0, watchLists: 0 }
    for (const i of order) {
      const read = i < n ? i : i - n
      const sign = i < n ? 1 : -1
      held += sign * this.bytes[read]!
      if (this.kinds[read] === "list") lists += sign
      else watchLists += sign
      if (sign > 0 && held > peak.bytes) peak = { bytes: held, at: this.starts[read]!, lists, watchLists }
    }
    const of = (kind: RelistRead) => {
      let count = 0
      let largestBytes = 0
      for (let i = 0; i < n; i++) {
        if (this.kinds[i] !== kind) continue
        count++
        largestBytes = Math.max(largestBytes, this.bytes[i]!)
      }
      return { count, largestBytes }
    }
    return {
      peakBytes: peak.bytes,
      peakAtMs: peak.at - originMs,
      atPeak: { lists: peak.lists, watchLists: peak.watchLists },
      lists: of("list"),
      watchLists: of("watchList")
    }
  }
}
