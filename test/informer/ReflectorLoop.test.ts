/**
 * The reflector's loop in virtual time against a scripted API: when it lists, at which resourceVersion and page
 * size, how long it backs off (exact, with a fixed "random" number), and when it only watches again.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ConfigMaps } from "../../src/api/Resources.js"
import * as Status from "../../src/api/Status.js"
import { startReflector, type ReflectorOptions, type ReflectorStore } from "../../src/informer/Reflector.js"
import { answers, bookmark, errorEvent, events, failsWith, listOf, obj, runScripted, watchFails, type Script } from "./scripted.js"

const nothing: ReflectorStore = { add: () => {}, update: () => {}, delete: () => {}, replace: () => {} }
const tooOld = () => Status.expired("too old resource version: 10 (20)")

const reflect = (script: Script, forMs: number, options: Partial<ReflectorOptions> = {}, random = 0) =>
  runScripted(
    script,
    Effect.map(startReflector({ resource: ConfigMaps, namespace: "default", random: () => random, ...options }, nothing), (r) => r.stats),
    forMs
  )

const listCalls = (log: ReturnType<typeof reflect>["log"]) =>
  log.lists.map(({ at, options }) => ({ at, rv: options.resourceVersion, limit: options.limit, continue: options.continue }))

describe("reflector loop (virtual time)", () => {
  it.each([0, 0.5])("relists after 410 / a broken watch with the backoff 0.8 s ×2, jitter factor %s; back to 0.8 s after 2 quiet minutes", (r) => {
    const { value, log } = reflect(
      {
        lists: [answers(listOf("10")), answers(listOf("12")), answers(listOf("15")), answers(listOf("17")), answers(listOf("30"))],
        watches: [
          watchFails(tooOld()), // HTTP 410 on the watch request
          events([errorEvent(tooOld().status)]), // in-stream 410
          watchFails(Status.internal("boom"), 2_000), // any other error, after 2 s
          watchFails(tooOld(), 200_000) // 200 s later: the backoff has been quiet for more than 2 min
        ]
      },
      300_000,
      {},
      r
    )
    const j = 1 + r
    expect(listCalls(log)).toEqual([
      { at: 0, rv: "0", limit: 500, continue: undefined },
      { at: 800 * j, rv: "10", limit: undefined, continue: undefined },
      { at: 800 * j + 1600 * j, rv: "12", limit: undefined, continue: undefined },
      { at: 800 * j + 1600 * j + 2_000 + 3200 * j, rv: "15", limit: undefined, continue: undefined },
      { at: 800 * j + 1600 * j + 2_000 + 3200 * j + 200_000 + 800 * j, rv: "17", limit: undefined, continue: undefined }
    ])
    const stats = Effect.runSync(value)
    expect(stats).toMatchObject({
      relists: 4,
      expired: { watchHttp: 2, watchStream: 1, list: 0 },
      triggers: { "watch-http-410": 2, "watch-stream-410": 1, "watch-error": 1 },
      lastSyncedRv: "30"
    })
    // every watch from the rv of the list before it, with bookmarks and ⌊300 × (1 + rand)⌋ s
    expect(log.watches.map((w) => w.options.resourceVersion)).toEqual(["10", "12", "15", "17", "30"])
    for (const w of log.watches) expect(w.options).toMatchObject({ allowWatchBookmarks: true, timeoutSeconds: Math.floor(300 * j) })
  })

  it("bookmarks advance the resourceVersion; a clean close watches again from it without a relist", () => {
    const { value, log } = reflect(
      {
        lists: [answers(listOf("10"))],
        watches: [
          events([bookmark("20")], 2_000),
          events([{ type: "ADDED", object: obj("a", "21") }, bookmark("30")], 300_000)
        ]
      },
      400_000
    )
    expect(log.watches.map((w) => ({ at: w.at, rv: w.options.resourceVersion }))).toEqual([
      { at: 0, rv: "10" },
      { at: 2_000, rv: "20" },
      { at: 302_000, rv: "30" }
    ])
    expect(log.lists).toHaveLength(1)
    expect(Effect.runSync(value)).toMatchObject({ relists: 0, rewatches: 2, bookmarks: 2, events: 1, lastSyncedRv: "30" })
  })

  it("a very short watch (closed at once, no events) relists after the backoff; 429 on the watch backs off and only watches again", () => {
    const { value, log } = reflect(
      {
        lists: [answers(listOf("10")), answers(listOf("11"))],
        watches: [events([]), watchFails(Status.tooManyRequests("slow down", 1))]
      },
      10_000
    )
    expect(listCalls(log).map((l) => l.at)).toEqual([0, 800])
    // the 429 is the second backoff step (1.6 s): watched again from the same rv, no list
    expect(log.watches.map((w) => ({ at: w.at, rv: w.options.resourceVersion }))).toEqual([
      { at: 0, rv: "10" },
      { at: 800, rv: "11" },
      { at: 2_400, rv: "11" }
    ])
    expect(Effect.runSync(value)).toMatchObject({ relists: 1, watchRetries: 1, triggers: { "short-watch": 1 } })
  })

  it.each([
    ["410 Expired", Status.expired("too old resource version: 10 (20)")],
    ["504 Too large resource version", Status.tooLargeResourceVersion(99, 20, 1)]
  ] as const)("%s on the relist → at once a quorum list (rv \"\"), paginated", (_name, error) => {
    const { value, log } = reflect(
      {
        lists: [answers(listOf("10")), failsWith(error), answers(listOf("20"))],
        watches: [watchFails(tooOld())]
      },
      5_000
    )
    expect(listCalls(log)).toEqual([
      { at: 0, rv: "0", limit: 500, continue: undefined },
      { at: 800, rv: "10", limit: undefined, continue: undefined },
      { at: 800, rv: "", limit: 500, continue: undefined }
    ])
    expect(log.watches.map((w) => w.options.resourceVersion)).toEqual(["10", "20"])
    expect(Effect.runSync(value)).toMatchObject({ relists: 1, expired: { list: 1 } })
  })

  it("a failed LIST backs off and lists again; the relist keeps its trigger's start", () => {
    const { value, log } = reflect(
      { lists: [failsWith(Status.internal("etcd down")), failsWith(Status.internal("etcd down")), answers(listOf("10"))], watches: [] },
      5_000
    )
    expect(listCalls(log).map((l) => ({ at: l.at, rv: l.rv }))).toEqual([
      { at: 0, rv: "0" },
      { at: 800, rv: "0" },
      { at: 2_400, rv: "0" }
    ])
    expect(Effect.runSync(value)).toMatchObject({ relists: 0, listFailures: 2, triggers: { "list-error": 2 }, lastSyncedRv: "10" })
  })

  it("watch-only: the current rv from a limit=1 list, nothing stored; after a 410 a fresh current rv", () => {
    const replaced: Array<number> = []
    const store: ReflectorStore = { ...nothing, replace: (items) => void replaced.push(items.length) }
    const { log } = runScripted(
      {
        lists: [answers(listOf("10", [obj("a", "3")])), answers(listOf("40", [obj("a", "3")]))],
        watches: [events([errorEvent(tooOld().status)], 5_000)]
      },
      startReflector({ resource: ConfigMaps, watchOnly: true, random: () => 0 }, store),
      10_000
    )
    expect(listCalls(log)).toEqual([
      { at: 0, rv: undefined, limit: 1, continue: undefined },
      { at: 800, rv: undefined, limit: 1, continue: undefined }
    ])
    expect(log.watches.map((w) => w.options.resourceVersion)).toEqual(["10", "40"])
    expect(replaced).toEqual([])
  })
})
