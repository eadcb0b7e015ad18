import { describe, expect, it } from "@effect/vitest"
import * as VirtualScheduler from "../../simulator/kernel/VirtualScheduler.js"

describe("VirtualScheduler", () => {
  it("runs tasks FIFO, including tasks scheduled while draining", () => {
    const s = VirtualScheduler.make()
    const order: Array<string> = []
    s.scheduleTask(() => {
      order.push("a")
      s.scheduleTask(() => order.push("c"), 0)
    }, 0)
    s.scheduleTask(() => order.push("b"), 0)
    expect(s.size).toBe(2)
    expect(s.drain()).toBe(3)
    expect(order).toEqual(["a", "b", "c"])
    expect(s.size).toBe(0)
  })

  it("runs lower priority numbers first, FIFO within a priority", () => {
    const s = VirtualScheduler.make()
    const order: Array<string> = []
    s.scheduleTask(() => order.push("p0-1"), 0)
    s.scheduleTask(() => order.push("p5-1"), 5)
    s.scheduleTask(() => order.push("p-1"), -1)
    s.scheduleTask(() => order.push("p5-2"), 5)
    s.scheduleTask(() => order.push("p0-2"), 0)
    s.drain()
    expect(order).toEqual(["p-1", "p0-1", "p0-2", "p5-1", "p5-2"])
  })

  it("drain stops at the limit and keeps the rest queued", () => {
    const s = VirtualScheduler.make()
    let n = 0
    for (let i = 0; i < 10_000; i++) s.scheduleTask(() => n++, 0)
    expect(s.drain(4_000)).toBe(4_000)
    expect(s.size).toBe(6_000)
    expect(s.runNext()).toBe(true)
    expect(s.drain()).toBe(5_999)
    expect(n).toBe(10_000)
    expect(s.runNext()).toBe(false)
  })
})
