/**
 * The monitor pass's alarms: which nodes' probes may have expired, found without looking at every node.
 */
import { EventHeap, type HeapEntry } from "../../kernel/EventHeap.js"

/** A node's alarm in `ProbeAlarms`. */
export interface Alarm extends HeapEntry {
  readonly name: string
}

export const makeAlarm = (name: string): Alarm => ({ name, time: 0, seq: 0, index: -1 })

/**
 * Finds the nodes whose probe may have expired without looking at every node. Each node has one alarm, set at or
 * before its deadline (probe + grace); a probe only moves forward, so an alarm rings early, never late. An alarm that
 * rings early is set again at the node's current deadline.
 */
export class ProbeAlarms {
  private readonly heap = new EventHeap<Alarm>()

  /** Makes `alarm` ring at `deadline` at the latest. */
  set(alarm: Alarm, deadline: number): void {
    if (alarm.index >= 0) {
      if (alarm.time <= deadline) return
      this.heap.remove(alarm)
    }
    this.heap.push(alarm, deadline)
  }

  cancel(alarm: Alarm): void {
    this.heap.remove(alarm)
  }

  /** The nodes past their deadline at `now`; their alarms are left off until set again. */
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
