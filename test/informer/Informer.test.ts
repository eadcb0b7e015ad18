/** The informer: its handlers' event sequence across a watch and a relist, the cache after it, and hasSynced. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { ConfigMaps } from "../../src/api/Resources.js"
import * as Status from "../../src/api/Status.js"
import { startInformer } from "../../src/informer/Informer.js"
import { answers, errorEvent, events, listOf, obj, runScripted } from "./scripted.js"

const at = (o: KObject) => `${o.metadata.name}@${o.metadata.resourceVersion}`

describe("Informer", () => {
  it("handlers see the initial list, the watch, then what the relist found changed (deletes synthesised for objects gone)", () => {
    const seen: Array<string> = []
    const synced: Array<[number, boolean]> = []
    const { value: informer } = runScripted(
      {
        lists: [
          // the first list answers after 100 ms
          () => Effect.as(Effect.sleep(100), listOf("3", [obj("a", "1"), obj("b", "2"), obj("c", "3")])),
          answers(listOf("7", [obj("c", "4"), obj("a", "6"), obj("d", "7")]))
        ],
        watches: [
          events([
            { type: "MODIFIED", object: obj("c", "4") },
            { type: "DELETED", object: obj("never-seen", "5") },
            errorEvent(Status.expired("too old resource version: 4 (6)").status)
          ])
        ]
      },
      Effect.gen(function* () {
        const informer = yield* startInformer(
          { resource: ConfigMaps, namespace: "default", random: () => 0 },
          {
            onAdd: (o, now, initial) => seen.push(`${now} add ${at(o)}${initial ? " (initial list)" : ""}`),
            onUpdate: (old, o, now) => seen.push(`${now} update ${at(old)} → ${at(o)}`),
            onDelete: (o, now) => seen.push(`${now} delete ${at(o)}`)
          }
        )
        yield* Effect.forkScoped(
          Effect.gen(function* () {
            yield* Effect.sleep(50)
            synced.push([50, yield* informer.hasSynced])
            yield* informer.synced
            synced.push([yield* Effect.clockWith((c) => c.currentTimeMillis), yield* informer.hasSynced])
          })
        )
        return informer
      }),
      5_000
    )
    expect(seen).toEqual([
      "100 add a@1 (initial list)",
      "100 add b@2 (initial list)",
      "100 add c@3 (initial list)",
      "100 update c@3 → c@4",
      // relist 800 ms later: c unchanged (no event), a changed, d new, then b gone with its last state
      "900 update a@1 → a@6",
      "900 add d@7",
      "900 delete b@2"
    ])
    expect(synced).toEqual([
      [50, false],
      [100, true]
    ])
    expect(informer.cache.list().map(at).sort()).toEqual(["a@6", "c@4", "d@7"])
    expect(Effect.runSync(informer.stats)).toMatchObject({ items: 3, relists: 1, events: 2, triggers: { "watch-stream-410": 1 } })
  })

  it("handler sets sharing one informer each see every change in order, from one list and one watch", () => {
    const seen: Array<string> = []
    const handlersOf = (who: string) => ({
      onAdd: (o: KObject, now: number, initial: boolean) => seen.push(`${who} ${now} add ${at(o)}${initial ? " (initial list)" : ""}`),
      onUpdate: (old: KObject, o: KObject, now: number) => seen.push(`${who} ${now} update ${at(old)} → ${at(o)}`),
      onDelete: (o: KObject, now: number) => seen.push(`${who} ${now} delete ${at(o)}`)
    })
    const { value: informer, log } = runScripted(
      {
        lists: [() => Effect.as(Effect.sleep(100), listOf("3", [obj("a", "1"), obj("b", "2")]))],
        watches: [
          events([
            { type: "MODIFIED", object: obj("a", "4") },
            { type: "DELETED", object: obj("b", "5") }
          ], 1_000)
        ]
      },
      startInformer({ resource: ConfigMaps, namespace: "default", random: () => 0 }, [handlersOf("x"), handlersOf("y")]),
      500
    )
    expect(log.lists.length).toBe(1)
    expect(log.watches.length).toBe(1)
    expect(seen).toEqual([
      "x 100 add a@1 (initial list)",
      "y 100 add a@1 (initial list)",
      "x 100 add b@2 (initial list)",
      "y 100 add b@2 (initial list)",
      "x 100 update a@1 → a@4",
      "y 100 update a@1 → a@4",
      "x 100 delete b@5",
      "y 100 delete b@5"
    ])
    expect(informer.cache.list().map(at)).toEqual(["a@4"])
  })
})
