import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as Duration from "effect/Duration"
import * as VirtualClock from "../../simulator/kernel/VirtualClock.js"

const drainHeap = (heap: VirtualClock.TimerHeap): void => {
  for (let t = heap.pop(); t !== undefined; t = heap.pop()) t.task()
}

describe("TimerHeap", () => {
  it("pops by time, ties by insertion order", () => {
    const heap = new VirtualClock.TimerHeap()
    const fired: Array<string> = []
    const times = [50, 10, 30, 10, 50, 0, 30, 10]
    times.forEach((time, i) => heap.insert(time, () => fired.push(`${time}#${i}`)))
    drainHeap(heap)
    expect(fired).toEqual(["0#5", "10#1", "10#3", "10#7", "30#2", "30#6", "50#0", "50#4"])
  })

  it("stays ordered under random inserts and removals", () => {
    const heap = new VirtualClock.TimerHeap()
    let x = 12345
    const rand = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32
    const live = new Set<VirtualClock.Timer>()
    for (let i = 0; i < 5000; i++) {
      live.add(heap.insert(Math.floor(rand() * 1000), () => {}))
      if (rand() < 0.3) {
        const victim = Array.from(live)[Math.floor(rand() * live.size)]!
        expect(heap.remove(victim)).toBe(true)
        expect(heap.remove(victim)).toBe(false)
        live.delete(victim)
      }
    }
    expect(heap.size).toBe(live.size)
    let prev: VirtualClock.Timer | undefined
    for (let t = heap.pop(); t !== undefined; t = heap.pop()) {
      expect(live.has(t)).toBe(true)
      if (prev) expect(prev.time < t.time || (prev.time === t.time && prev.seq < t.seq)).toBe(true)
      prev = t
    }
  })
})

describe("VirtualClock", () => {
  it("reads the virtual time only", () => {
    const clock = VirtualClock.make({ startMillis: 1_700_000_000_000 })
    expect(clock.unsafeCurrentTimeMillis()).toBe(1_700_000_000_000)
    clock.unsafeAdvanceTo(1_700_000_000_001.5)
    expect(clock.unsafeCurrentTimeNanos()).toBe(1_700_000_000_001_500_000n)
    clock.unsafeAdvanceTo(5) // never backwards
    expect(clock.unsafeCurrentTimeMillis()).toBe(1_700_000_000_001.5)
  })

  it("schedules relative to now and cancels", () => {
    const clock = VirtualClock.make()
    clock.unsafeAdvanceTo(100)
    const a = clock.unsafeSchedule(() => {}, 50)
    const b = clock.unsafeSchedule(() => {}, -5)
    expect(a.time).toBe(150)
    expect(b.time).toBe(100)
    expect(clock.unsafeCancel(a)).toBe(true)
    expect(clock.timers.size).toBe(1)
  })

  it("a positive delay always moves time forward, even below float resolution", () => {
    const clock = VirtualClock.make({ startMillis: 1_700_000_000_000 })
    const t = clock.unsafeSchedule(() => {}, 1e-9)
    expect(t.time).toBeGreaterThan(1_700_000_000_000)
    expect(VirtualClock.nextUp(1)).toBe(1 + Number.EPSILON)
    expect(VirtualClock.nextUp(0)).toBe(Number.MIN_VALUE)
  })

  it("an infinite sleep registers no timer; a finite one does", () => {
    const clock = VirtualClock.make()
    const forever = Effect.runFork(clock.sleep(Duration.infinity))
    expect(clock.timers.size).toBe(0)
    const finite = Effect.runFork(clock.sleep(Duration.millis(5)))
    expect(clock.timers.size).toBe(1)
    expect(clock.timers.peek()?.time).toBe(5)
    Effect.runFork(Fiber.interruptAll([forever, finite]))
  })

  it("rejects a negative start", () => {
    expect(() => VirtualClock.make({ startMillis: -1 })).toThrow(/startMillis/)
  })
})
