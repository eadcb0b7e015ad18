import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, Fiber, Option, Stream } from "effect"
import type { KObject, WatchEvent } from "../../src/api/Object.js"
import { ConfigMaps } from "../../src/api/Resources.js"
import * as Status from "../../src/api/Status.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import type { WatchPulls } from "../../src/client/Capabilities.js"
import { openWatchPull, readWatch, readWatchScoped, type WatchPull } from "../../src/client/WatchPull.js"

const event = (name: string): WatchEvent => ({ type: "ADDED", object: { metadata: { name } } as KObject })
const names = (batches: ReadonlyArray<Chunk.Chunk<WatchEvent>>) => batches.map((b) => Chunk.toArray(b).map((e) => e.object.metadata.name))

/** A client with only the watch verbs given (the others are never called here). */
const watchingClient = (verbs: Pick<ApiClientService, "watch"> & Partial<WatchPulls>): ApiClientService => verbs as unknown as ApiClientService

/** Pulls answering `batches` one by one, then the end; counts the pulls. */
const scriptedPull = (batches: ReadonlyArray<ReadonlyArray<string>>, end: Option.Option<Status.ApiError> = Option.none()) => {
  const counter = { pulls: 0 }
  const pull: WatchPull = Effect.suspend(() => {
    const batch = batches[counter.pulls++]
    return batch === undefined ? Effect.fail(end) : Effect.succeed(Chunk.fromIterable(batch.map(event)))
  })
  return { pull, counter }
}

const readAll = (client: ApiClientService) =>
  Effect.gen(function* () {
    const seen: Array<Chunk.Chunk<WatchEvent>> = []
    const outcome = yield* Effect.either(
      Effect.scoped(Effect.flatMap(openWatchPull(client, ConfigMaps), (pull) => readWatch(pull, (b) => Effect.sync(() => (seen.push(b), true)))))
    )
    return { seen, outcome }
  })

describe("WatchPull", () => {
  it.effect("a client without pullWatch is read through its stream: every event in order, then the stream's error", () =>
    Effect.gen(function* () {
      const gone = Status.expired("too old resource version: 1 (5)")
      const client = watchingClient({ watch: () => Stream.concat(Stream.fromIterable(["a", "b", "c"].map(event)), Stream.fail(gone)) })
      const { seen, outcome } = yield* readAll(client)
      expect(names(seen).flat()).toEqual(["a", "b", "c"])
      expect(outcome._tag === "Left" && outcome.left._tag === "ApiError" && outcome.left.status.code).toBe(410)
    })
  )

  it.effect("pullWatch is preferred to the stream; its end (None) ends the read without an error", () =>
    Effect.gen(function* () {
      const { pull, counter } = scriptedPull([["a", "b"], ["c"]])
      const client = watchingClient({ watch: () => Stream.die("the stream must not be read"), pullWatch: () => Effect.succeed(pull) })
      const { seen, outcome } = yield* readAll(client)
      expect(names(seen)).toEqual([["a", "b"], ["c"]])
      expect(outcome._tag).toBe("Right")
      expect(counter.pulls).toBe(3)
    })
  )

  it.effect("a pull failing with Some is the watch's error; an opening error fails before any pull", () =>
    Effect.gen(function* () {
      const broken = Status.internal("watch stream: bad frame")
      const { pull } = scriptedPull([["a"]], Option.some(broken))
      const failing = yield* readAll(watchingClient({ watch: () => Stream.empty, pullWatch: () => Effect.succeed(pull) }))
      expect(names(failing.seen)).toEqual([["a"]])
      expect(failing.outcome._tag === "Left" && failing.outcome.left._tag === "ApiError" && failing.outcome.left.status.message).toBe("watch stream: bad frame")
      const refused = yield* readAll(watchingClient({ watch: () => Stream.empty, pullWatch: () => Effect.fail(Status.badRequest("unknown field selector")) }))
      expect(refused.seen).toEqual([])
      expect(refused.outcome._tag === "Left" && refused.outcome.left._tag === "ApiError" && refused.outcome.left.status.code).toBe(400)
    })
  )

  it.effect("readWatch stops pulling once the reader answers false", () =>
    Effect.gen(function* () {
      const { pull, counter } = scriptedPull([["a"], ["b"], ["c"]])
      const seen: Array<string> = []
      yield* readWatch(pull, (b) => Effect.sync(() => (seen.push(...Chunk.toArray(b).map((e) => e.object.metadata.name!)), seen.length < 2)))
      expect(seen).toEqual(["a", "b"])
      expect(counter.pulls).toBe(2)
    })
  )

  describe("readWatchScoped", () => {
    /** A client whose watch registers a finalizer in the caller's scope (as the in-process server's does), recording how it closed. */
    const closingClient = (pull: WatchPull) => {
      const closed: Array<string> = []
      const client = watchingClient({
        watch: () => Stream.die("the stream must not be read"),
        pullWatch: () => Effect.as(Effect.addFinalizer((exit) => Effect.sync(() => closed.push(Exit.isSuccess(exit) ? "success" : Exit.isInterrupted(exit) ? "interrupted" : "failure"))), pull)
      })
      return { client, closed }
    }

    it.effect("the watch's scope is closed once as the read ends: at the end, at its error, when the reader stops", () =>
      Effect.gen(function* () {
        const ended = closingClient(scriptedPull([["a"], ["b"]]).pull)
        const seen: Array<Chunk.Chunk<WatchEvent>> = []
        yield* readWatchScoped(ended.client, ConfigMaps, undefined, (b) => Effect.sync(() => (seen.push(b), true)))
        expect(names(seen)).toEqual([["a"], ["b"]])
        expect(ended.closed).toEqual(["success"])

        const broken = closingClient(scriptedPull([["a"]], Option.some(Status.internal("watch stream: bad frame"))).pull)
        const outcome = yield* Effect.either(readWatchScoped(broken.client, ConfigMaps, undefined, () => Effect.succeed(true)))
        expect(outcome._tag === "Left" && outcome.left._tag === "ApiError" && outcome.left.status.message).toBe("watch stream: bad frame")
        expect(broken.closed).toEqual(["failure"])

        const stopped = closingClient(scriptedPull([["a"], ["b"]]).pull)
        yield* readWatchScoped(stopped.client, ConfigMaps, undefined, () => Effect.succeed(false))
        expect(stopped.closed).toEqual(["success"])
      })
    )

    it.effect("an interrupted read closes the watch's scope; a watch that fails to open leaves nothing to close", () =>
      Effect.gen(function* () {
        const parked = closingClient(Effect.never)
        const fiber = yield* Effect.fork(readWatchScoped(parked.client, ConfigMaps, undefined, () => Effect.succeed(true)))
        yield* Effect.yieldNow()
        expect(parked.closed).toEqual([])
        yield* Fiber.interrupt(fiber)
        expect(parked.closed).toEqual(["interrupted"])

        const refused = watchingClient({ watch: () => Stream.empty, pullWatch: () => Effect.fail(Status.badRequest("unknown field selector")) })
        const outcome = yield* Effect.either(readWatchScoped(refused, ConfigMaps, undefined, () => Effect.succeed(true)))
        expect(outcome._tag === "Left" && outcome.left._tag === "ApiError" && outcome.left.status.code).toBe(400)
      })
    )
  })
})
