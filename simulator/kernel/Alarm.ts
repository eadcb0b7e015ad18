/**
 * A sleep that another fiber can cut short. A loop that sleeps until its next due item (a node-agent shard) must
 * wake earlier when someone else pushes an earlier item (a pod bound to one of its nodes), or that item would wait
 * for whatever was due next.
 */
import * as Effect from "effect/Effect"
import type { Timers } from "./Timers.js"

export class Alarm {
  private ring: (() => void) | undefined
  /** When the current sleep ends on its own; −∞ when nobody sleeps. */
  private until = -Infinity

  constructor(private readonly timers: Timers) {}

  /** Sleeps `millis`, or until `wakeBy` is called with an earlier time. */
  sleep(millis: number): Effect.Effect<void> {
    return Effect.async<void>((resume) => {
      const ring = () => {
        this.ring = undefined
        this.until = -Infinity
        cancel()
        resume(Effect.void)
      }
      this.ring = ring
      this.until = this.timers.now() + millis
      const cancel = this.timers.after(millis, ring)
      return Effect.sync(() => {
        if (this.ring !== ring) return
        this.ring = undefined
        this.until = -Infinity
        cancel()
      })
    })
  }

  /** Ends the sleep now if it would last past `time`. */
  wakeBy(time: number): void {
    if (time < this.until) this.ring?.()
  }
}
