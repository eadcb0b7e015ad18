/**
 * The monitor pass's alarms: which nodes' probes may have expired, found without looking at every node.
 */
import { popKey, pushKey } from "../../kernel/NumberHeap.js"

/** A node's alarm in `ProbeAlarms`. */
export interface Alarm {
  readonly name: string
  /** The node's ordinal (`NodeOrdinals`), where its deadline is found. */
  readonly ordinal: number
  /** When it rings (at or before the node's deadline), while `set`. */
  time: number
  set: boolean
  /** The bucket it was last put in (`ProbeAlarms`). */
  key: number
  /** The `expired` call that last rang it: an alarm put twice in one bucket rings once. */
  rung: number
}

export const makeAlarm = (name: string, ordinal: number): Alarm => ({ name, ordinal, time: 0, set: false, key: 0, rung: -1 })

/** The span of one bucket (ms): a deadline is probe + grace, a grace tens of seconds, a pass every few seconds. */
const bucketMs = 1_000

/**
 * Finds the nodes whose probe may have expired without looking at every node. Each node has one alarm, set at or
 * before its deadline (probe + grace); a probe only moves forward, so an alarm rings early, never late. An alarm that
 * rings early is set again at the node's current deadline.
 *
 * The alarms are kept in buckets of `bucketMs` by their time, not in a heap: in the 5,000-node hour every node's alarm
 * rings early every grace period (its lease renewed meanwhile), and each of those ~125 a second cost a heap pop — a
 * dozen levels of reads of other nodes' alarms, each a likely cache miss (docs/benchmarks.md); a bucket is an array
 * appended to and read in order. Which alarms ring is the heap's: those whose time is before `now`; the order of the
 * rings is not kept (`expired` answers a set).
 */
export class ProbeAlarms {
  /** Alarms by `floor(time / bucketMs)`; an alarm cancelled or set again earlier stays in its old bucket, skipped there. */
  private readonly buckets = new Map<number, Array<Alarm>>()
  /** The keys of `buckets`, a binary min-heap. */
  private readonly keys: Array<number> = []
  private calls = 0

  /** Makes `alarm` ring at `deadline` at the latest. */
  set(alarm: Alarm, deadline: number): void {
    if (alarm.set && alarm.time <= deadline) return
    alarm.time = deadline
    alarm.set = true
    const key = (alarm.key = Math.floor(deadline / bucketMs))
    const bucket = this.buckets.get(key)
    if (bucket !== undefined) bucket.push(alarm)
    else {
      this.buckets.set(key, [alarm])
      pushKey(this.keys, key)
    }
  }

  cancel(alarm: Alarm): void {
    alarm.set = false
  }

  /** The nodes past their deadline at `now`; their alarms are left off until set again. */
  expired(now: number, deadlineOf: (alarm: Alarm) => number | undefined): Set<string> {
    const expired = new Set<string>()
    const call = this.calls++
    // The buckets that may hold a time before `now`, taken first: an alarm set again while they ring goes to a new
    // bucket, for the next call.
    const { keys, buckets } = this
    const taken: Array<readonly [key: number, bucket: Array<Alarm>]> = []
    while (keys.length > 0 && keys[0]! * bucketMs < now) {
      const key = popKey(keys)
      taken.push([key, buckets.get(key)!])
      buckets.delete(key)
    }
    for (const [key, bucket] of taken) {
      for (const alarm of bucket) {
        if (!alarm.set || alarm.key !== key || alarm.rung === call) continue
        if (alarm.time >= now) {
          // not due yet: back in its bucket (rung stays, so a second entry in the old bucket is skipped)
          alarm.rung = call
          alarm.set = false
          this.set(alarm, alarm.time)
          continue
        }
        alarm.rung = call
        alarm.set = false
        const deadline = deadlineOf(alarm)
        if (deadline === undefined) continue
        if (now > deadline) expired.add(alarm.name)
        else this.set(alarm, deadline)
      }
    }
    return expired
  }
}
