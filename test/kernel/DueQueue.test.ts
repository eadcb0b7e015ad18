/** The shards' bucketed queue pops exactly as a binary heap ordered by (time, insertion) would. */
import { describe, expect, it } from "@effect/vitest"
import { DueQueue } from "../../simulator/kernel/DueQueue.js"
import { EventHeap, type HeapEntry } from "../../simulator/kernel/EventHeap.js"

const popAll = (q: DueQueue<number>, now: number): Array<string> => {
  const out: Array<string> = []
  for (let id = q.popDue(now); id !== undefined; id = q.popDue(now)) out.push(`${id}@${q.time}/${q.tag}`)
  return out
}

describe("DueQueue", () => {
  it("runs a step's items by time then insertion, with their times and tags, and only what is due", () => {
    const q = new DueQueue<number>(1000)
    const times = [2500, 1200, 1999, 1200, 3000, 1000, 2001]
    times.forEach((t, i) => q.push(i, t, i % 3))
    expect(q.nextDue()).toBe(1000)
    expect(popAll(q, 1000)).toEqual(["5@1000/2"])
    expect(q.nextDue()).toBe(2000)
    expect(popAll(q, 2000)).toEqual(["1@1200/1", "3@1200/0", "2@1999/2"])
    expect(popAll(q, 3000)).toEqual(["6@2001/0", "0@2500/0", "4@3000/1"])
    expect(q.nextDue()).toBeUndefined()
  })

  it("merges items pushed into the running step (or before it) with the rest of that step", () => {
    const q = new DueQueue<number>(1000)
    q.push(0, 1100)
    q.push(1, 1900)
    expect(q.popDue(2000)).toBe(0)
    q.push(2, 1500) // due in the running step, between the two
    q.push(3, 1900) // same time as 1: after it
    q.push(4, 900) // already late
    q.push(5, 1500) // same time as 2: after it
    q.push(6, 2100) // the next step
    expect(popAll(q, 2000)).toEqual(["4@900/0", "2@1500/0", "5@1500/0", "1@1900/0", "3@1900/0"])
    expect(q.nextDue()).toBe(3000)
    expect(popAll(q, 3000)).toEqual(["6@2100/0"])
  })

  it("shows ahead what it pops next from the loaded step, with tags, and nothing past the step", () => {
    const q = new DueQueue<number>(1000)
    const times = [1700, 1200, 1999, 1200, 2500, 1001]
    times.forEach((t, i) => q.push(i, t, i % 3))
    expect(q.ahead(0)).toBeUndefined() // nothing loaded yet
    expect(q.popDue(2000)).toBe(5)
    const shown = [0, 1, 2, 3].map((k) => [q.ahead(k), q.ahead(k) === undefined ? undefined : q.aheadTag])
    expect(shown).toEqual([[1, 1], [3, 0], [0, 0], [2, 2]])
    expect(q.ahead(4)).toBeUndefined() // 4 is in the next step
    expect(popAll(q, 2000)).toEqual(["1@1200/1", "3@1200/0", "0@1700/0", "2@1999/2"])
    expect(q.ahead(0)).toBeUndefined()
  })

  it("orders fractional times (no counting) the same way", () => {
    const q = new DueQueue<number>(1000)
    ;[1500.5, 1200.25, 1500.5, 1000.75].forEach((t, i) => q.push(i, t))
    expect(popAll(q, 2000)).toEqual(["3@1000.75/0", "1@1200.25/0", "0@1500.5/0", "2@1500.5/0"])
  })

  it("agrees with EventHeap under a simulated shard's random pushes and wake-ups", () => {
    let x = 42
    const rand = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32
    const q = new DueQueue<number>(1000)
    const heap = new EventHeap<HeapEntry & { id: number }>()
    let id = 0
    const push = (time: number) => {
      q.push(id, time)
      heap.push({ id, time: 0, seq: 0, index: -1 }, time)
      id++
    }
    for (let i = 0; i < 200; i++) push(Math.floor(rand() * 20_000))
    for (let now = 0; now <= 60_000; now += 1000) {
      expect(q.nextDue() === undefined).toBe(heap.peek() === undefined)
      for (let e = q.popDue(now); e !== undefined; e = q.popDue(now)) {
        const top = heap.pop()!
        expect([e, q.time]).toEqual([top.id, top.time])
        expect(top.time).toBeLessThanOrEqual(now)
        // like an agent: the next event of the same kind, sometimes due at once, sometimes a few seconds on
        if (rand() < 0.9) push(now + Math.floor(rand() * (rand() < 0.1 ? 1 : 12_000)) - (rand() < 0.05 ? 500 : 0))
      }
      expect(heap.peek() === undefined || heap.peek()!.time > now).toBe(true)
    }
    expect(id).toBeGreaterThan(1000)
  })

  it("keeps hundreds of items pushed into the running step in (time, insertion) order, as a 65,000-node step has", () => {
    let x = 7
    const rand = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32
    const q = new DueQueue<number>(1000)
    const heap = new EventHeap<HeapEntry & { id: number }>()
    let id = 0
    const push = (time: number) => {
      q.push(id, time, id % 7)
      heap.push({ id, time: 0, seq: 0, index: -1 }, time)
      id++
    }
    for (let i = 0; i < 500; i++) push(1000 + Math.floor(rand() * 1000))
    let popped = 0
    for (let e = q.popDue(2000); e !== undefined; e = q.popDue(2000)) {
      const top = heap.pop()!
      expect([e, q.time, q.tag]).toEqual([top.id, top.time, top.id % 7])
      // every popped item pushes up to two more into this step, some at the same ms as others
      if (++popped < 1500) for (let k = rand() < 0.5 ? 2 : 1; k > 0; k--) push(q.time + Math.floor(rand() * (2000 - q.time)))
    }
    expect(heap.peek()).toBeUndefined()
    expect(popped).toBeGreaterThan(2000)
  })
})
