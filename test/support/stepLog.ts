/**
 * A log of every step of a simulated run, with instants, for tests comparing two ways of running reflectors call by
 * call (test/informer/ReflectorTaking.test.ts, ReflectorChain.test.ts): a store that logs what it is told, writes that
 * log themselves and the step after, and a fiber whose two steps every second fall among the others'.
 */
import { Effect } from "effect"
import type { ReflectorStore } from "../../src/informer/Reflector.js"

export const loggingStore = (log: Array<string>, who: string): ReflectorStore => ({
  add: (o, now) => void log.push(`${who} add ${o.metadata.name} ${o.metadata.resourceVersion} @${now}`),
  update: (o, now) => void log.push(`${who} update ${o.metadata.name} ${o.metadata.resourceVersion} @${now}`),
  delete: (o, now) => void log.push(`${who} delete ${o.metadata.name} ${o.metadata.resourceVersion} @${now}`),
  replace: (items, rv, now) => void log.push(`${who} replace ${items.map((o) => o.metadata.name).join(",")} ${rv} @${now}`)
})

/** `effect` (a write), logged, then its fiber's next step logged. */
export const loggedWrite = (log: Array<string>) => (what: string, effect: Effect.Effect<unknown, unknown>) =>
  Effect.gen(function* () {
    yield* Effect.orDie(effect)
    log.push(`wrote ${what}`)
    // the reader's wake is queued behind this fiber's step: a reader run inside the write would log before this
    yield* Effect.yieldNow()
    log.push(`after ${what}`)
  })
