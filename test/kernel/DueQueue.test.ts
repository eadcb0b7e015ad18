/** The shards' bucketed queue pops exactly as a binary heap ordered by (time, insertion) would. */
import { describe, expect, it } from "@effect/vitest"
import { DueQueue, type DueEntry } from "../../simulator/kernel/DueQueue.js"
import { EventHeap } from "../../simulator/kernel/EventHeap.js"

interface Item extends DueEntry {
  readonly id: number
  index: number
}

const item = (id: number): Item => ({ id, time: 0, seq: 0, index: -1 })

describe("DueQueue", () => {
  it("runs a step's entries by time then insertion, and only what is due", () => {
    const q = new DueQueue<Item>(1000)
    const times = [2500, 1200, 1999, 1200, 3000, 1000, 2001]
    times.forEach((t, i) => q.push(item(i), t))
    expect(q.nextDue()).toBe(1000)
    const popAll = (now: number) => {
      const out: Array<number> = []
      for (let e = q.popDue(now); e !== undefined; e = q.popDue(now)) out.push(e.id)
      return out
    }
    expect(popAll(1000)).toEqual([5])
    expect(q.nextDue()).toBe(2000)
    expect(popAll(2000)).toEqual([1, 3, 2])
    expect(popAll(3000)).toEqual([6, 0, 4])
    expect(q.nextDue()).toBeUndefined()
  })

  it("merges entries pushed into the running step (or before it) with the rest of that step", () => {
    const q = new DueQueue<Item>(1000)
    q.push(item(0), 1100)
    q.push(item(1), 1900)
    expect(q.popDue(2000)?.id).toBe(0)
    q.push(item(2), 1500) // due in the running step, between the two
    q.push(item(3), 1900) // same time as 1: after it
    q.push(item(4), 900) // already late
    q.push(item(5), 2100) // the next step
    expect([q.popDue(2000)?.id, q.popDue(2000)?.id, q.popDue(2000)?.id, q.popDue(2000)?.id]).toEqual([4, 2, 1, 3])
    expect(q.popDue(2000)).toBeUndefined()
    expect(q.nextDue()).toBe(3000)
    expect(q.popDue(3000)?.id).toBe(5)
  })

  it("agrees with EventHeap under a simulated shard's random pushes and wake-ups", () => {
    let x = 42
    const rand = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32
    const q = new DueQueue<Item>(1000)
    const heap = new EventHeap<Item>()
    let id = 0
    const push = (time: number) => {
      const a = item(id)
      const b = item(id)
      id++
      q.push(a, time)
      heap.push(b, time)
    }
    for (let i = 0; i < 200; i++) push(Math.floor(rand() * 20_000))
    for (let now = 0; now <= 60_000; now += 1000) {
      expect(q.nextDue() === undefined).toBe(heap.peek() === undefined)
      for (let e = q.popDue(now); e !== undefined; e = q.popDue(now)) {
        const top = heap.pop()!
        expect(top.time).toBeLessThanOrEqual(now)
        expect(e.id).toBe(top.id)
        // like an agent: the next event of the same kind, sometimes due at once, sometimes a few seconds on
        if (rand() < 0.9) push(now + Math.floor(rand() * (rand() < 0.1 ? 1 : 12_000)) - (rand() < 0.05 ? 500 : 0))
      }
      expect(heap.peek() === undefined || heap.peek()!.time > now).toBe(true)
    }
    expect(id).toBeGreaterThan(1000)
  })
})
