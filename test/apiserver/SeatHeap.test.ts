import { describe, expect, it } from "vitest"
import { SeatHeap } from "../../simulator/apiserver/SeatHeap.js"

describe("SeatHeap", () => {
  it("books single seats at the earliest free one and several seats together when the last of them is free", () => {
    const heap = new SeatHeap(4)
    expect(heap.takeEarliest(0, 10)).toBe(0) // seats free at 10, 0, 0, 0
    expect(heap.takeEarliest(0, 5)).toBe(0) // 10, 5, 0, 0
    expect(heap.startFor(0, 2)).toBe(0)
    expect(heap.startFor(0, 3)).toBe(5)
    expect(heap.startFor(7, 3)).toBe(7)
    heap.take(3, 20) // the three earliest (0, 0, 5) until 20: 10, 20, 20, 20
    expect(heap.startFor(0, 1)).toBe(10)
    expect(heap.startFor(0, 4)).toBe(20)
    expect(heap.takeEarliest(12, 1)).toBe(12) // 13, 20, 20, 20
    expect(heap.startFor(0, 1)).toBe(13)
    expect(heap.startFor(0, 2)).toBe(20)
    expect(heap.takeEarliest(0, 2)).toBe(13) // 15, 20, 20, 20
    expect(heap.startFor(0, 1)).toBe(15)
  })
})

describe("SeatHeap against a sorted list of its seats", () => {
  it("starts and takes as the list does, in a run of single- and multi-seat bookings, at times back and forth", () => {
    // the plain model: the seats' free instants, sorted; a booking takes the earliest ones
    const capacities = [1, 2, 3, 4, 7, 8, 98]
    for (const capacity of capacities) {
      const heap = new SeatHeap(capacity)
      const model = new Array<number>(capacity).fill(0)
      let seed = capacity
      const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
      let at = 0
      for (let i = 0; i < 20_000; i++) {
        // mostly forward, sometimes back (a request booked ahead of the clock, as after ensure-lease's GET)
        at = Math.max(0, at + (next() < 0.1 ? -next() * 20 : next() * 2))
        const service = next() * 10
        const seats = next() < 0.9 ? 1 : 1 + Math.floor(next() * capacity)
        model.sort((a, b) => a - b)
        const expected = Math.max(at, model[seats - 1]!)
        expect(heap.startFor(at, seats)).toBe(expected)
        if (seats === 1 && next() < 0.5) expect(heap.takeEarliest(at, service)).toBe(expected)
        else heap.take(seats, expected + service)
        for (let s = 0; s < seats; s++) model[s] = expected + service
      }
    }
  })
})
