import { describe, expect, it } from "@effect/vitest"
import { podView } from "../../simulator/scheduler/framework/Views.js"
import { backoffDuration, SchedulingQueue } from "../../simulator/scheduler/SchedulingQueue.js"

const pod = (name: string, spec: Record<string, unknown> = {}) =>
  podView({ metadata: { name, namespace: "default", uid: `uid-${name}` }, spec: { containers: [{ name: "c", resources: { requests: {} } }], ...spec } })

describe("SchedulingQueue", () => {
  it("backoff 1, 2, 4, 8, 10, 10 s", () => {
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffDuration(a))).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000])
  })
  it("priority then FIFO; failures go to unschedulable unless a move request happened; moves respect backoff", () => {
    const q = new SchedulingQueue()
    q.add(pod("low"), 0)
    q.add(pod("high", { priority: 10 }), 1)
    q.add(pod("low2"), 2)
    expect([q.pop()!.key, q.pop()!.key]).toEqual(["default/high", "default/low"])
    const low2 = q.pop()!
    q.requeueUnschedulable(low2, q.schedulingCycle, 100)
    expect(q.counts()).toEqual({ active: 0, backoff: 0, unschedulable: 1 })
    // A cluster event 500 ms later: still backing off (1 s from the failure) → backoffQ, then active after 1 s.
    q.moveAllToActiveOrBackoff(600)
    expect(q.counts()).toEqual({ active: 0, backoff: 1, unschedulable: 0 })
    expect(q.flushBackoffCompleted(1099)).toBe(0)
    expect(q.flushBackoffCompleted(1100)).toBe(1)
    const again = q.pop()!
    expect(again.attempts).toBe(2)
    // The move request came after this cycle began? No: cycle moved on, so it goes unschedulable again.
    q.requeueUnschedulable(again, q.schedulingCycle, 2000)
    expect(q.counts().unschedulable).toBe(1)
    // Leftover flush after 5 min.
    expect(q.flushUnschedulableLeftover(2000 + 300_000)).toBe(0)
    expect(q.flushUnschedulableLeftover(2000 + 300_001)).toBe(1)
  })
})
