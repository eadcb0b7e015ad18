/**
 * The scheduling queue (upstream `pkg/scheduler/internal/queue/scheduling_queue.go`): activeQ (higher priority, then
 * earlier timestamp), backoffQ (by backoff expiry) and the unschedulable map. Pure: every time-dependent call takes
 * `now` (ms).
 */
import type { PodView } from "./framework/Views.js"

/** Backoff after `attempts` failures: initial × 2^(attempts − 1), capped (`calculateBackoffDuration`). */
export const backoffDuration = (attempts: number, initialMs = 1000, maxMs = 10_000): number => {
  let d = initialMs
  for (let i = 1; i < attempts; i++) {
    d *= 2
    if (d >= maxMs) return maxMs
  }
  return Math.min(d, maxMs)
}

export interface QueuedPod {
  pod: PodView
  key: string
  /** When it entered the queue / last failed. */
  timestamp: number
  attempts: number
  unschedulableSince: number
}

class Heap<T> {
  private readonly items: T[] = []
  constructor(private readonly less: (a: T, b: T) => boolean) {}
  get size() {
    return this.items.length
  }
  peek(): T | undefined {
    return this.items[0]
  }
  push(x: T): void {
    const a = this.items
    a.push(x)
    let i = a.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!this.less(a[i]!, a[p]!)) break
      ;[a[i], a[p]] = [a[p]!, a[i]!]
      i = p
    }
  }
  pop(): T | undefined {
    const a = this.items
    if (a.length === 0) return undefined
    const top = a[0]
    const last = a.pop()!
    if (a.length > 0) {
      a[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < a.length && this.less(a[l]!, a[m]!)) m = l
        if (r < a.length && this.less(a[r]!, a[m]!)) m = r
        if (m === i) break
        ;[a[i], a[m]] = [a[m]!, a[i]!]
        i = m
      }
    }
    return top
  }
}

export const podKey = (p: { readonly namespace: string; readonly name: string }) => `${p.namespace}/${p.name}`

export interface QueueOptions {
  readonly initialBackoffMs?: number
  readonly maxBackoffMs?: number
  /** `--pod-max-in-unschedulable-pods-duration`, default 5 min. */
  readonly maxUnschedulableMs?: number
}

export class SchedulingQueue {
  /** Where each known pod is; heaps use lazy deletion (an entry is live iff `where` still points at it). */
  private readonly where = new Map<string, { q: "active" | "backoff" | "unschedulable" | "inflight"; info: QueuedPod }>()
  private readonly active = new Heap<QueuedPod>((a, b) =>
    a.pod.priority !== b.pod.priority ? a.pod.priority > b.pod.priority : a.timestamp < b.timestamp
  )
  private readonly backoff = new Heap<{ info: QueuedPod; expiry: number }>((a, b) => a.expiry < b.expiry)
  private readonly unschedulable = new Map<string, QueuedPod>()
  schedulingCycle = 0
  moveRequestCycle = -1
  private readonly initialBackoff: number
  private readonly maxBackoff: number
  private readonly maxUnschedulable: number

  constructor(options: QueueOptions = {}) {
    this.initialBackoff = options.initialBackoffMs ?? 1000
    this.maxBackoff = options.maxBackoffMs ?? 10_000
    this.maxUnschedulable = options.maxUnschedulableMs ?? 5 * 60_000
  }

  backoffExpiry(info: QueuedPod): number {
    return info.timestamp + backoffDuration(info.attempts, this.initialBackoff, this.maxBackoff)
  }

  get activeCount() {
    let n = 0
    for (const w of this.where.values()) if (w.q === "active") n++
    return n
  }

  counts(): { active: number; backoff: number; unschedulable: number } {
    const c = { active: 0, backoff: 0, unschedulable: 0 }
    for (const w of this.where.values()) if (w.q !== "inflight") c[w.q]++
    return c
  }

  /** Holds no pod, not even the one being scheduled: `delete` has nothing to do. */
  get isEmpty(): boolean {
    return this.where.size === 0 && this.unschedulable.size === 0
  }

  has(key: string): boolean {
    return this.where.has(key)
  }

  /** A new pending pod goes to activeQ. Returns true if it was new. `key`: `podKey(pod)`, when the caller has it. */
  add(pod: PodView, now: number, key = podKey(pod)): boolean {
    const w = this.where.get(key)
    if (w) {
      w.info.pod = pod
      return false
    }
    const info: QueuedPod = { pod, key, timestamp: now, attempts: 0, unschedulableSince: 0 }
    this.where.set(key, { q: "active", info })
    this.active.push(info)
    return true
  }

  delete(key: string): void {
    this.where.delete(key)
    this.unschedulable.delete(key)
  }

  /** Next pod to schedule, or undefined when activeQ is empty. */
  pop(): QueuedPod | undefined {
    for (;;) {
      const info = this.active.pop()
      if (!info) return undefined
      const w = this.where.get(info.key)
      if (!w || w.q !== "active" || w.info !== info) continue
      w.q = "inflight"
      info.attempts++
      this.schedulingCycle++
      return info
    }
  }

  /** Scheduled (or gone): forget it. */
  done(key: string): void {
    this.where.delete(key)
  }

  /** After a failure in cycle `cycle` (`AddUnschedulableIfNotPresent`). */
  requeueUnschedulable(info: QueuedPod, cycle: number, now: number): void {
    const w = this.where.get(info.key)
    if (!w || w.info !== info) return
    info.timestamp = now
    if (this.moveRequestCycle >= cycle) {
      w.q = "backoff"
      this.backoff.push({ info, expiry: this.backoffExpiry(info) })
    } else {
      w.q = "unschedulable"
      info.unschedulableSince = now
      this.unschedulable.set(info.key, info)
    }
  }

  private toActive(info: QueuedPod): void {
    const w = this.where.get(info.key)
    if (!w) return
    w.q = "active"
    this.active.push(info)
  }

  /** Every 1 s: backoff entries whose expiry passed go to activeQ. Returns how many moved. */
  flushBackoffCompleted(now: number): number {
    let n = 0
    for (;;) {
      const top = this.backoff.peek()
      if (!top || top.expiry > now) return n
      this.backoff.pop()
      const w = this.where.get(top.info.key)
      if (!w || w.q !== "backoff" || w.info !== top.info) continue
      this.toActive(top.info)
      n++
    }
  }

  /** Every 30 s: pods unschedulable for longer than the limit are moved. */
  flushUnschedulableLeftover(now: number): number {
    const due: QueuedPod[] = []
    for (const info of this.unschedulable.values()) if (now - info.unschedulableSince > this.maxUnschedulable) due.push(info)
    for (const info of due) this.move(info, now)
    return due.length
  }

  /** A cluster event (node added or changed, pod deleted): every unschedulable pod moves. */
  moveAllToActiveOrBackoff(now: number): number {
    const all = [...this.unschedulable.values()]
    for (const info of all) this.move(info, now)
    this.moveRequestCycle = this.schedulingCycle
    return all.length
  }

  private move(info: QueuedPod, now: number): void {
    this.unschedulable.delete(info.key)
    const w = this.where.get(info.key)
    if (!w) return
    const expiry = this.backoffExpiry(info)
    if (now < expiry) {
      w.q = "backoff"
      this.backoff.push({ info, expiry })
    } else this.toActive(info)
  }
}
