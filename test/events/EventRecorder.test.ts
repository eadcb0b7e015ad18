import { Duration, Effect, Fiber, Stream } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { ConfigMaps, Events } from "../../src/api/Resources.js"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { hexNanos, isomorphicKey, make, truncateNote } from "../../simulator/events/EventRecorder.js"
import { runEventTtl } from "../../simulator/events/EventTtl.js"
import * as TokenBucket from "../../simulator/events/TokenBucket.js"
import { runSim } from "../scheduler/sim.js"

const pod = { kind: "Pod", apiVersion: "v1", name: "web-1", namespace: "default", uid: "u-1" }
const start = 1_700_000_000_123
const listEvents = Effect.flatMap(ApiClient, (c) => c.list(Events, {})).pipe(Effect.orDie, Effect.map((l) => l.items))

describe("TokenBucket", () => {
  it("lets a burst through, then delays by 1/qps each", () => {
    const b = TokenBucket.make(2, 3)
    expect([0, 0, 0, 0, 0].map(() => b.reserve(0))).toEqual([0, 0, 0, 500, 1000])
    expect(b.reserve(5000)).toBe(0)
  })
  it("qps 0 means no limit", () => {
    const b = TokenBucket.make(0, 0)
    expect(Array.from({ length: 100 }, () => b.reserve(0)).every((d) => d === 0)).toBe(true)
  })
})

describe("EventRecorder", () => {
  it("names <regarding>.<hex UnixNano>, eventTime in microseconds, reporting fields", () => {
    const items = runSim(
      Effect.gen(function* () {
        const rec = yield* make({ reportingController: "default-scheduler", reportingInstance: "default-scheduler-host1" })
        yield* rec.eventf(pod, undefined, "Normal", "Scheduled", "Binding", "Successfully assigned default/web-1 to node-a")
        yield* rec.flush
        return yield* listEvents
      }),
      { startMillis: start }
    )
    expect(items).toHaveLength(1)
    const e = items[0]!
    expect(e.metadata.name).toBe(`web-1.${hexNanos(BigInt(start) * 1_000_000n)}`)
    expect(e.metadata.name).toBe("web-1.17979cfe3d7ed4c0")
    expect(e.eventTime).toBe("2023-11-14T22:13:20.123000Z")
    expect(e.reportingController).toBe("default-scheduler")
    expect(e.reportingInstance).toBe("default-scheduler-host1")
    expect(e.regarding).toEqual({ kind: "Pod", apiVersion: "v1", name: "web-1", namespace: "default", uid: "u-1" })
    expect(e.series).toBeUndefined()
  })

  it("series: 2nd occurrence patches count 2, later ones count in the cache, finished after 6 min idle", () => {
    const r = runSim(
      Effect.gen(function* () {
        const rec = yield* make({ reportingController: "default-scheduler", reportingInstance: "i" })
        const emit = (note: string) => rec.eventf(pod, undefined, "Warning", "FailedScheduling", "Scheduling", note)
        yield* emit("0/1 nodes are available: a")
        yield* Effect.sleep("1 second")
        yield* emit("a different note, same series")
        yield* rec.flush
        const afterTwo = yield* listEvents
        for (let i = 0; i < 3; i++) {
          yield* Effect.sleep("1 second")
          yield* emit("again")
        }
        yield* rec.flush
        const afterFive = yield* listEvents
        const stats = yield* rec.stats
        yield* Effect.sleep("13 minutes")
        const finished = yield* listEvents
        return { afterTwo, afterFive, stats, finished }
      })
    )
    expect(r.afterTwo).toHaveLength(1)
    expect(r.afterTwo[0]!.series).toEqual({ count: 2, lastObservedTime: "1970-01-01T00:00:01.000000Z" })
    expect(r.afterTwo[0]!.note).toBe("0/1 nodes are available: a")
    expect(r.afterFive[0]!.series).toEqual({ count: 2, lastObservedTime: "1970-01-01T00:00:01.000000Z" })
    expect(r.stats).toMatchObject({ recorded: 5, created: 1, patched: 1, countedInCache: 3 })
    // Final PATCH when the series went idle (housekeeping at 6 min sees 2 min idle, at 12 min 8 min idle).
    expect(r.finished[0]!.series).toEqual({ count: 5, lastObservedTime: "1970-01-01T00:00:04.000000Z" })
  })

  it("heartbeat: an active series is re-patched every 30 min", () => {
    const series = runSim(
      Effect.gen(function* () {
        const rec = yield* make({ reportingController: "c", reportingInstance: "i" })
        for (let i = 0; i < 31 * 2; i++) {
          yield* rec.eventf(pod, undefined, "Warning", "BackOff", "Restart", "x")
          yield* Effect.sleep("30 seconds")
        }
        return (yield* listEvents)[0]!.series
      })
    )
    // Heartbeat at 30:00 saw 60 occurrences (0 s … 29:30).
    expect(series).toEqual({ count: 60, lastObservedTime: "1970-01-01T00:29:30.000000Z" })
  })

  it("isomorphic key ignores the note; distinct regarding objects are distinct series", () => {
    expect(isomorphicKey("a", "r", "c", pod, undefined)).toBe(isomorphicKey("a", "r", "c", pod, undefined))
    expect(isomorphicKey("a", "r", "c", pod, undefined)).not.toBe(isomorphicKey("a", "r", "c", { ...pod, name: "web-2" }, undefined))
  })

  it("rate limit: token bucket delays writes (burst 2, 1/s), never drops them", () => {
    const counts = runSim(
      Effect.gen(function* () {
        const rec = yield* make({ reportingController: "node-agent", reportingInstance: "node-a", qps: 1, burst: 2 })
        for (let i = 0; i < 5; i++) yield* rec.eventf({ ...pod, name: `p${i}` }, undefined, "Normal", "Pulled", "Pull", "ok")
        const seen: number[] = []
        for (let t = 0; t < 5; t++) {
          yield* Effect.sleep("500 millis")
          seen.push((yield* listEvents).length)
          yield* Effect.sleep("500 millis")
        }
        return { seen, stats: yield* rec.stats }
      })
    )
    expect(counts.seen).toEqual([2, 3, 4, 5, 5])
    expect(counts.stats.dropped).toBe(0)
  })

  it("queue: full queue drops", () => {
    const stats = runSim(
      Effect.gen(function* () {
        const rec = yield* make({ reportingController: "c", reportingInstance: "i", qps: 1, burst: 1, queueSize: 3 })
        for (let i = 0; i < 10; i++) yield* rec.eventf({ ...pod, name: `p${i}` }, undefined, "Normal", "R", "A", "n")
        yield* rec.flush
        return yield* rec.stats
      })
    )
    expect(stats.dropped).toBe(7)
    expect(stats.created).toBe(3)
  })

  it("a series PATCH on an expired event (404) creates it again, with the series", () => {
    const items = runSim(
      Effect.gen(function* () {
        const client = yield* ApiClient
        const rec = yield* make({ reportingController: "c", reportingInstance: "i" })
        yield* rec.eventf(pod, undefined, "Warning", "BackOff", "Restart", "x")
        yield* rec.flush
        const first = (yield* listEvents)[0]!
        yield* Effect.orDie(client.delete(Events, first.metadata.name!, { namespace: "default" }))
        yield* Effect.sleep("2 minutes")
        yield* rec.eventf(pod, undefined, "Warning", "BackOff", "Restart", "x")
        yield* rec.flush
        return { items: yield* listEvents, name: first.metadata.name, stats: yield* rec.stats }
      })
    )
    expect(items.items).toHaveLength(1)
    expect(items.items[0]!.metadata.name).toBe(items.name)
    expect(items.items[0]!.series).toEqual({ count: 2, lastObservedTime: "1970-01-01T00:02:00.000000Z" })
    expect(items.stats).toMatchObject({ created: 2, patched: 0, failed: 0 })
  })

  it("notes over 1 kB are cut with ' ...'", () => {
    const t = truncateNote("x".repeat(2000))
    expect(t.length).toBe(1024)
    expect(t.endsWith(" ...")).toBe(true)
  })
})

describe("EventTtl", () => {
  it("deletes events TTL after their last write; watchers see DELETED", () => {
    const r = runSim(
      Effect.gen(function* () {
        const client = yield* ApiClient
        const watcher = yield* Effect.fork(
          client.watch(Events, {}).pipe(Stream.filter((e) => e.type === "DELETED"), Stream.take(1), Stream.runCollect)
        )
        yield* Effect.forkScoped(runEventTtl({ ttlMs: 10 * 60_000, sweepMs: 60_000 }))
        const rec = yield* make({ reportingController: "c", reportingInstance: "i" })
        yield* rec.eventf(pod, undefined, "Normal", "R", "A", "n")
        yield* rec.flush
        yield* Effect.sleep(Duration.minutes(9))
        const before = (yield* listEvents).length
        yield* Effect.sleep(Duration.minutes(2))
        const after = (yield* listEvents).length
        const deleted = yield* Fiber.join(watcher)
        return { before, after, deleted: [...deleted].map((e) => e.object.metadata.name) }
      })
    )
    expect(r.before).toBe(1)
    expect(r.after).toBe(0)
    expect(r.deleted).toHaveLength(1)
  })

  it("across a relist (compaction, dropped watches) an unchanged event keeps its write time; one changed meanwhile counts from the relist", () => {
    const r = runSim(
      Effect.gen(function* () {
        const inner = yield* ApiClient
        const server = yield* ApiServer
        const eventLists: Array<string | undefined> = []
        const tapped: ApiClientService = {
          ...inner,
          list: (resource, opts) => {
            if (resource === Events) eventLists.push(opts?.resourceVersion)
            return inner.list(resource, opts)
          }
        }
        const tracked: Array<number> = []
        yield* Effect.forkScoped(
          runEventTtl({ ttlMs: 10 * 60_000, sweepMs: 60_000 }, (s) => void tracked.push(s.tracked)).pipe(Effect.provideService(ApiClient, tapped))
        )
        const rec = yield* make({ reportingController: "c", reportingInstance: "i" })
        yield* rec.eventf(pod, undefined, "Normal", "Kept", "A", "kept")
        yield* rec.eventf({ ...pod, name: "web-2", uid: "u-2" }, undefined, "Normal", "Touched", "A", "touched")
        yield* rec.flush
        yield* Effect.sleep(Duration.minutes(5))
        // history compacted past the watch's rv, the watch dropped, and one event written while it is down
        yield* Effect.orDie(inner.create(ConfigMaps, { metadata: { name: "bump" } }, { namespace: "default" }))
        yield* server.compact()
        yield* server.dropWatches()
        const touched = (yield* listEvents).find((e) => e.reason === "Touched")!
        yield* Effect.orDie(inner.update(Events, { ...touched, metadata: { ...touched.metadata, labels: { touched: "again" } } }, { namespace: "default" }))
        yield* Effect.sleep(Duration.minutes(6))
        const at11 = (yield* listEvents).map((e) => e.reason)
        yield* Effect.sleep(Duration.seconds(6 * 60 + 30))
        const at17 = (yield* listEvents).map((e) => e.reason)
        return { eventLists, at11, at17, tracked }
      })
    )
    // the initial list, then one relist at the last rv
    expect(r.eventLists).toHaveLength(2)
    expect(r.eventLists[0]).toBe("0")
    expect(r.eventLists[1]).not.toBe("0")
    expect(r.at11).toEqual(["Touched"])
    expect(r.at17).toEqual([])
    expect(r.tracked.at(-1)).toBe(0)
  })
})
