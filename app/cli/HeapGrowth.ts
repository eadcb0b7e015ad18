/**
 * `clustersim replay`'s heap kept near what it holds (docs/replay.md "Memory and timing"). A replay keeps little (the
 * reorder window, the plan, the seed, the report's bounded figures: ~40 MiB with the program), but every event it
 * decodes lives in the window long enough to reach the old generation, so it promotes garbage as fast as it reads.
 * V8 lets the old generation grow to up to 4× what survived the last full collection before collecting again (its
 * heap controller's largest growing factor, for a heap limit of 2 GiB and more — Node's default here); a 1 GiB log's
 * replay peaked at 407 MiB RSS that way. A growing factor of 1.5 keeps the old generation under ~1.5× the live heap,
 * whatever it is: not a cap, so a replay whose seed is large still runs, only with more frequent full collections.
 *
 * Set in the process itself (V8 reads the factor at each full collection), not by starting a second process with
 * Node flags: one process, its signals and exit code as they are. A user's own heap flags (the command line's or
 * `NODE_OPTIONS`) stand.
 */
import { Effect } from "effect"
import { setFlagsFromString } from "node:v8"

/** The old generation grows by at most this much over the live heap between full collections. */
export const HeapGrowingPercent = 50

const heapFlag = /--(max[-_]old[-_]space[-_]size|heap[-_]growing[-_]percent|max[-_]heap[-_]size)\b/

/** Whether the user chose the heap's size or growth: in Node's own flags or in `NODE_OPTIONS`. */
export const heapChosenByUser = (execArgv: ReadonlyArray<string>, nodeOptions: string | undefined): boolean =>
  execArgv.some((a) => heapFlag.test(a)) || (nodeOptions !== undefined && heapFlag.test(nodeOptions))

/** Bounds the old generation's growth, unless the user chose; returns what gives V8 its own growth back. */
export const boundHeapGrowth = (): (() => void) => {
  if (heapChosenByUser(process.execArgv, process.env.NODE_OPTIONS)) return () => {}
  setFlagsFromString(`--heap-growing-percent=${HeapGrowingPercent}`)
  // 0: V8's own factor (its default)
  return () => setFlagsFromString("--heap-growing-percent=0")
}

/** `effect` with the old generation's growth bounded while it runs. */
export const withBoundedHeapGrowth = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.acquireUseRelease(Effect.sync(boundHeapGrowth), () => effect, (restore) => Effect.sync(restore))
