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
