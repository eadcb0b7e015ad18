import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Stream } from "effect"
import type { KObject, WatchEvent } from "../../src/api/Object.js"
import { WatchEventBuffer } from "../../simulator/apiserver/WatchEventBuffer.js"

const event = (name: string): WatchEvent => ({ type: "ADDED", object: { metadata: { name } } as KObject })
const names = (chunks: ReadonlyArray<Chunk.Chunk<WatchEvent>>) => chunks.map((c) => Chunk.toArray(c).map((e) => e.object.metadata.name))

describe("WatchEventBuffer", () => {
  it.effect("hands every waiting event over in one chunk and ends after the events pushed before end()", () =>
    Effect.gen(function* () {
      const buffer = new WatchEventBuffer()
      buffer.push(event("a"))
      buffer.push(event("b"))
      expect(buffer.size).toBe(2)
      buffer.end()
      buffer.push(event("after-end"))
      const chunks = yield* Stream.runCollect(Stream.mapChunks(buffer.stream, (c) => Chunk.of(c)))
      expect(names(Chunk.toArray(chunks))).toEqual([["a", "b"]])
      expect(buffer.size).toBe(0)
    })
  )

  it.effect("a parked reader wakes on a push and reads what came meanwhile; nothing is lost at the end", () =>
    Effect.gen(function* () {
      const buffer = new WatchEventBuffer()
      const seen: Array<Chunk.Chunk<WatchEvent>> = []
      const reader = yield* Effect.fork(Stream.runForEachChunk(buffer.stream, (c) => Effect.sync(() => void seen.push(c))))
      yield* Effect.yieldNow()
      buffer.push(event("a"))
      yield* Effect.yieldNow()
      buffer.push(event("b"))
      buffer.push(event("c"))
      buffer.end()
      yield* Fiber.join(reader)
      expect(names(seen)).toEqual([["a"], ["b", "c"]])
    })
  )
})
