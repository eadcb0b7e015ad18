/**
 * The retained changes of one resource type, oldest first — what a watch cache replays for a watch that starts at
 * a resource version, and what a list at an older revision undoes. One log per type, so a watch of pods does not
 * walk past every lease renewal.
 */
import type { Change } from "./Store.js"

export class ChangeLog {
  private items: Change[] = []
  /** Index of the oldest retained change. */
  private head = 0

  push(change: Change): void {
    this.items.push(change)
  }

  /** Drops changes written before `before` (ms); returns the newest dropped revision, or 0. */
  dropBefore(before: number): number {
    const items = this.items
    let i = this.head
    while (i < items.length && items[i]!.time < before) i++
    return this.dropUpTo(i)
  }

  /** Drops everything; returns the newest dropped revision, or 0. */
  dropAll(): number {
    return this.dropUpTo(this.items.length)
  }

  private dropUpTo(index: number): number {
    if (index <= this.head) return 0
    const newest = this.items[index - 1]!.revision
    this.head = index
    // Reclaim the array once the dropped prefix dominates it.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head)
      this.head = 0
    }
    return newest
  }

  /** Retained changes after `revision`, oldest first. */
  *after(revision: number): Generator<Change> {
    const items = this.items
    // Revisions increase along the log, so the first one after `revision` is found by bisection.
    let lo = this.head
    let hi = items.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (items[mid]!.revision <= revision) lo = mid + 1
      else hi = mid
    }
    for (let i = lo; i < items.length; i++) yield items[i]!
  }

  /** Retained changes after `revision`, newest first. */
  *newestAfter(revision: number): Generator<Change> {
    const items = this.items
    for (let i = items.length - 1; i >= this.head; i--) {
      const c = items[i]!
      if (c.revision <= revision) return
      yield c
    }
  }
}
