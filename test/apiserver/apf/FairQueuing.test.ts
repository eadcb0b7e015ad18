/**
 * Fair queuing in one priority level (simulator/apiserver/apf/FairQueuing.ts, upstream's queueset): a free seat goes
 * to the queue whose oldest request finishes first in virtual time, each queue charged the seat-seconds its requests
 * really held; ties go round robin from the queue dispatched last. Exact dispatch orders for small cases, worked by
 * hand below.
 */
import { describe, expect, it } from "vitest"
import { EstimatedServiceSeconds, FairQueuing, type FairEntry } from "../../../simulator/apiserver/apf/FairQueuing.js"
import { dealHand, flowHash } from "../../../simulator/apiserver/apf/ShuffleSharding.js"

/** Four queues, a hand of one: each flow has one queue, `flowIn(i)` a flow whose queue is i. */
const queuing = { queues: 4, handSize: 1, queueLengthLimit: 50 }
const flowIn = (queue: number): string => {
  for (let i = 0; ; i++) if (dealHand(flowHash(`flow-${i}`), queuing.queues, queuing.handSize)[0] === queue) return `flow-${i}`
}

/** One seat; requests named by their flow's letter hold it `serviceSeconds[letter]`; returns the dispatch order. */
const dispatchOrder = (arrivals: ReadonlyArray<string>, serviceSeconds: Record<string, number>, seats = 1): ReadonlyArray<string> => {
  const flows: Record<string, string> = { a: flowIn(0), b: flowIn(1), c: flowIn(2) }
  let now = 0
  const fair = new FairQueuing<string>(seats, queuing, now)
  const order: Array<string> = []
  const running: Array<{ entry: FairEntry<string>; ends: number }> = []
  const runAll = () => {
    for (let e = fair.dispatch(now); e !== undefined; e = fair.dispatch(now)) {
      order.push(e.payload)
      running.push({ entry: e, ends: now + serviceSeconds[e.payload[0]!]! })
    }
  }
  for (const name of arrivals) {
    const arrival = fair.arrive(now, flows[name[0]!]!, 1, name)
    expect(arrival._tag).toBe("Entered")
    runAll()
  }
  while (running.length > 0) {
    running.sort((x, y) => x.ends - y.ends)
    const next = running.shift()!
    now = next.ends
    fair.finish(now, next.entry)
    runAll()
  }
  return order
}

describe("FairQueuing", () => {
  it("the flows' queues are 0, 1 and 2", () => {
    expect([0, 1, 2].map((q) => dealHand(flowHash(flowIn(q)), 4, 1))).toEqual([[0], [1], [2]])
  })

  it("one seat, 1 s requests: each flow's queue in turn, not arrival order", () => {
    // t=0: a1 runs (queue 0's next R 0.003); the rest wait, queues 1 and 2 at R 0.
    // t=1: a1 ends, queue 0 charged its 1 s (next R 1.0); queues 1 and 2 tie at 0.003, the walk from queue 0 meets 1 first: b1.
    // t=2: queue 1 at 1.0; c1 (0.003). t=3: queues 0 and 1 tie at 1.003, the walk from queue 2 meets 0 first: a2.
    // t=4: queue 0 at 2.0: b2 (1.003). Then queue 0 alone: a3, a4.
    expect(dispatchOrder(["a1", "a2", "a3", "a4", "b1", "b2", "c1"], { a: 1, b: 1, c: 1 })).toEqual(["a1", "b1", "c1", "a2", "b2", "a3", "a4"])
  })

  it("one seat, a's requests hold it 3 s and b's 1 s: each flow gets the same seat-seconds", () => {
    // t=3: a1 ends, queue 0 at 3.0; b1, b2, b3 take queue 1 to 3.0; tied at 3.003 the walk from queue 1 meets 0: a2 (6.0
    // at t=9), then b4, b5, b6 (queue 1 at 6.0 at t=12), a3.
    expect(dispatchOrder(["a1", "a2", "a3", "b1", "b2", "b3", "b4", "b5", "b6"], { a: 3, b: 1 })).toEqual(["a1", "b1", "b2", "b3", "a2", "b4", "b5", "b6", "a3"])
  })

  it("a head that needs more seats than are free holds its turn; nothing else is dispatched past it", () => {
    let now = 0
    const fair = new FairQueuing<string>(2, queuing, now)
    const a = fair.arrive(now, flowIn(0), 1, "a1")
    expect(fair.dispatch(now)?.payload).toBe("a1")
    fair.arrive(now, flowIn(1), 2, "wide")
    expect(fair.dispatch(now)).toBeUndefined()
    // queue 2 starts later in virtual time than the wide head's queue: it waits behind it
    now = 0.5
    fair.arrive(now, flowIn(2), 1, "c1")
    expect(fair.dispatch(now)).toBeUndefined()
    now = 1
    if (a._tag !== "Entered") throw new Error("a1 not entered")
    fair.finish(now, a.entry)
    expect(fair.dispatch(now)?.payload).toBe("wide")
    expect(fair.dispatch(now)).toBeUndefined()
    expect(fair.seatsInUse).toBe(2)
    expect(fair.waitingCount).toBe(1)
  })

  it("rejects queue-full only while every seat is taken; a level without queues rejects what does not fit", () => {
    const fair = new FairQueuing<number>(1, { queues: 1, handSize: 1, queueLengthLimit: 2 }, 0)
    expect(fair.arrive(0, "f", 1, 0)._tag).toBe("Entered")
    expect(fair.arrive(0, "f", 1, 1)._tag).toBe("Entered")
    // a seat is free: the queue may exceed its limit, as upstream's `rejectOrEnqueueToBoundLocked`
    expect(fair.arrive(0, "f", 1, 2)._tag).toBe("Entered")
    expect(fair.dispatch(0)?.payload).toBe(0)
    expect(fair.arrive(0, "f", 1, 3)).toEqual({ _tag: "Rejected", reason: "queue-full" })
    const sansQueues = new FairQueuing<number>(1, undefined, 0)
    const first = sansQueues.arrive(0, "f", 1, 0)
    expect(first._tag === "Entered" && first.entry.state).toBe("executing")
    expect(sansQueues.arrive(0, "f", 1, 1)).toEqual({ _tag: "Rejected", reason: "concurrency-limit" })
  })

  it("a cancelled head leaves its queue, whose next dispatch then starts no earlier than the new head's arrival", () => {
    let now = 0
    const fair = new FairQueuing<string>(1, queuing, now)
    const a1 = fair.arrive(now, flowIn(0), 1, "a1")
    expect(fair.dispatch(now)?.payload).toBe("a1")
    const b1 = fair.arrive(now, flowIn(3), 1, "b1")
    // R advances 10 s × 1 seat / 2 active queues: 5.0 when c1 and b2 arrive
    now = 10
    fair.arrive(now, flowIn(2), 1, "c1")
    fair.arrive(now, flowIn(3), 1, "b2")
    if (b1._tag !== "Entered" || a1._tag !== "Entered") throw new Error("not entered")
    expect(fair.remove(now, b1.entry)).toBe(true)
    expect(fair.remove(now, b1.entry)).toBe(false)
    expect(fair.waitingCount).toBe(2)
    // queue 3 bounded to b2's arrival (5.0), not left at b1's (0): it ties with queue 2 at 5.003, and the walk from
    // queue 0 meets queue 2 first
    fair.finish(now, a1.entry)
    expect(fair.dispatch(now)?.payload).toBe("c1")
    expect(fair.dispatch(now)).toBeUndefined()
    expect(EstimatedServiceSeconds).toBe(0.003)
  })
})
