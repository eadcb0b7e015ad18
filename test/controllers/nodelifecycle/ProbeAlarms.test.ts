/**
 * `ProbeAlarms` keeps its alarms in time buckets; the heap it replaced (kept here as the reference) rang exactly the
 * alarms whose time was before `now`. Both are driven through the same random set / cancel / expired sequences — probes
 * moving forward, graces changing, nodes deleted — and must find the same expired nodes at every call.
 */
import { describe, expect, it } from "@effect/vitest"
import { makeAlarm, ProbeAlarms, type Alarm } from "../../../simulator/controllers/nodelifecycle/ProbeAlarms.js"
import { EventHeap, type HeapEntry } from "../../../simulator/kernel/EventHeap.js"

interface HeapAlarm extends HeapEntry {
  readonly name: string
}

/** The heap version (before buckets): the general path. */
class HeapAlarms {
  private readonly heap = new EventHeap<HeapAlarm>()
  set(alarm: HeapAlarm, deadline: number): void {
    if (alarm.index >= 0) {
      if (alarm.time <= deadline) return
      this.heap.remove(alarm)
    }
    this.heap.push(alarm, deadline)
  }
  cancel(alarm: HeapAlarm): void {
    this.heap.remove(alarm)
  }
  expired(now: number, deadlineOf: (name: string) => number | undefined): Set<string> {
    const expired = new Set<string>()
    for (let top = this.heap.peek(); top !== undefined && top.time < now; top = this.heap.peek()) {
      this.heap.pop()
      const deadline = deadlineOf(top.name)
      if (deadline === undefined) continue
      if (now > deadline) expired.add(top.name)
      else this.heap.push(top, deadline)
    }
    return expired
  }
}

/** A small seeded generator (the test's own, so the sequences do not depend on the simulator's). */
const lcg = (seed: number) => {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

const sorted = (s: Set<string>) => [...s].sort()

describe("ProbeAlarms", () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])("finds the same expired nodes as the heap it replaced (seed %i)", (seed) => {
    const random = lcg(seed)
    const names = Array.from({ length: 40 }, (_, i) => `node-${i}`)
    const fast = new ProbeAlarms()
    const reference = new HeapAlarms()
    const fastAlarms = new Map<string, Alarm>(names.map((n, i) => [n, makeAlarm(n, i)]))
    const referenceAlarms = new Map<string, HeapAlarm>(names.map((n) => [n, { name: n, time: 0, seq: 0, index: -1 }]))
    // each node's probe and grace as the monitor pass keeps them; absent: deleted
    const probe = new Map<string, number>()
    const grace = new Map<string, number>()
    const deadlineOf = (name: string) => (probe.has(name) ? probe.get(name)! + grace.get(name)! : undefined)
    let now = 0
    let rang = 0
    for (let step = 0; step < 3_000; step++) {
      const name = names[Math.floor(random() * names.length)]!
      const r = random()
      if (r < 0.35) {
        // a probe (a renewal or heartbeat seen at this pass), at times with a changed grace (60 s → 40 s)
        if (!probe.has(name) || random() < 0.1) grace.set(name, random() < 0.5 ? 60_000 : 40_000 + Math.floor(random() * 1_000))
        probe.set(name, now)
      } else if (r < 0.65) {
        if (probe.has(name)) {
          // settle: set at the node's deadline, sometimes at a time before it (an alarm may ring early)
          const deadline = deadlineOf(name)! - (random() < 0.2 ? Math.floor(random() * 30_000) : 0)
          fast.set(fastAlarms.get(name)!, deadline)
          reference.set(referenceAlarms.get(name)!, deadline)
        }
      } else if (r < 0.68) {
        probe.delete(name)
        if (random() < 0.5) {
          fast.cancel(fastAlarms.get(name)!)
          reference.cancel(referenceAlarms.get(name)!)
        }
      } else {
        // passes 5 s apart, or late (a pass that wrote took time)
        now += Math.floor(random() * 4) * 5_000 + (random() < 0.5 ? Math.floor(random() * 2_000) : 0)
        const found = fast.expired(now, (alarm) => deadlineOf(alarm.name))
        expect(sorted(found)).toEqual(sorted(reference.expired(now, deadlineOf)))
        rang += found.size
      }
    }
    // the sequences do make nodes expire
    expect(rang).toBeGreaterThan(20)
  })
})
