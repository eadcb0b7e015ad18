/**
 * Large answers are decoded in event-loop turns of their own. A relist storm delivers many LISTs of megabytes at
 * once; decoding them back to back in one turn holds every timer of the process — a load action's intended starts,
 * the generator's own health monitor — for the whole batch. A decode takes the turns it needs, one bounded step
 * per turn (`ListInSlices`: a slice of a list's items), in the order the answers arrived; the waiting informers pay
 * the queue, as they would in any busy client (docs/benchmarks.md "Load generator").
 */
import { Effect } from "effect"

/** Answers up to this size decode at once: they cost less than a turn of the event loop. */
export const decodeInTurnBytes = 64 * 1024

/** A decode in steps: each `step()` does a bounded share of the work and says whether `value` is complete. */
export interface SteppedDecode<A> {
  readonly step: () => boolean
  readonly value: A
}

/** Queued decodes, oldest first; the head runs one step per turn until it is done. */
const waiting: Array<() => boolean> = []
let draining = false

const decodeNext = (): void => {
  const job = waiting[0]
  if (job !== undefined && job()) waiting.shift()
  if (waiting.length > 0) setImmediate(decodeNext)
  else draining = false
}

/** `decode` run a step per event-loop turn, after the decodes queued before it; a throw is a defect. */
export const decodeInTurns = <A>(decode: () => SteppedDecode<A>): Effect.Effect<A> =>
  Effect.async<A>((resume) => {
    let decoding: SteppedDecode<A> | undefined
    const job = (): boolean => {
      try {
        decoding ??= decode()
        if (!decoding.step()) return false
        resume(Effect.succeed(decoding.value))
      } catch (e) {
        resume(Effect.die(e))
      }
      return true
    }
    waiting.push(job)
    if (!draining) {
      draining = true
      setImmediate(decodeNext)
    }
    return Effect.sync(() => {
      const i = waiting.indexOf(job)
      if (i >= 0) waiting.splice(i, 1)
    })
  })

/** `decode()` as a single step. */
export const inOneStep = <A>(decode: () => A): SteppedDecode<A> => {
  let value: A
  return {
    step: () => ((value = decode()), true),
    get value() {
      return value
    }
  }
}
