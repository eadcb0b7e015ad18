/**
 * Large answers are decoded one per event-loop turn. A relist storm delivers many LISTs of megabytes at once;
 * decoding them back to back in one turn holds every timer of the process — a load action's intended starts, the
 * generator's own health monitor — for the whole batch. One large decode per turn bounds that hold to one answer's
 * decode; the waiting informers pay the queue, as they would in any busy client (docs/benchmarks.md "Load generator").
 */
import { Effect } from "effect"

/** Answers up to this size decode at once: they cost less than a turn of the event loop. */
export const decodeInTurnBytes = 64 * 1024

const waiting: Array<() => void> = []
let draining = false

const decodeNext = (): void => {
  waiting.shift()?.()
  if (waiting.length > 0) setImmediate(decodeNext)
  else draining = false
}

/** `decode()` run in an event-loop turn of its own, after the decodes queued before it; a throw is a defect. */
export const decodeInTurn = <A>(decode: () => A): Effect.Effect<A> =>
  Effect.async<A>((resume) => {
    const job = () => {
      let decoded: Effect.Effect<A>
      try {
        decoded = Effect.succeed(decode())
      } catch (e) {
        decoded = Effect.die(e)
      }
      resume(decoded)
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
