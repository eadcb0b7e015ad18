import { describe, expect, it } from "@effect/vitest"
import type * as http from "node:http"
import { watchStream } from "../../simulator/apiserver/http/WatchStream.js"
import type { KObject, WatchEvent } from "../../src/api/Object.js"

/** A response whose client reads nothing until `drain()`: every written byte stays buffered. */
const stalledResponse = () => {
  const state = { buffered: 0, writes: 0, ended: false, destroyed: false }
  const res = {
    get writableLength() {
      return state.buffered
    },
    writeHead: () => res,
    flushHeaders: () => {},
    write: (bytes: Buffer) => {
      state.buffered += bytes.length
      state.writes++
      return false
    },
    end: () => void (state.ended = true),
    destroy: () => void (state.destroyed = true)
  }
  return { res: res as unknown as http.ServerResponse, state, drain: () => void (state.buffered = 0) }
}

const req = { headers: {} } as http.IncomingMessage
const event = (name: string, pad = 0): WatchEvent => ({
  type: "ADDED",
  object: { kind: "ConfigMap", apiVersion: "v1", metadata: { name }, data: { pad: "x".repeat(pad) } } as unknown as KObject
})

const stream = (res: http.ServerResponse, maxQueuedEvents: number, maxQueuedBytes: number, defects: unknown[] = []) => {
  let ends = 0
  const sink = watchStream(req, res, { representation: "json", maxQueuedEvents, maxQueuedBytes, onEnd: () => ends++, onDefect: (d) => defects.push(d) })
  return { sink, ends: () => ends }
}

describe("watchStream", () => {
  it("refuses a live event once watchBufferSize events wait for the client; initial events always go in", () => {
    const { res, state, drain } = stalledResponse()
    const { sink } = stream(res, 3, 1 << 20)
    for (let i = 0; i < 5; i++) expect(sink.offer(event(`init-${i}`), true)).toBe(true)
    expect(sink.offer(event("live"))).toBe(false)
    drain()
    expect([sink.offer(event("a")), sink.offer(event("b")), sink.offer(event("c")), sink.offer(event("d"))]).toEqual([true, true, true, false])
    expect(state.writes).toBe(8)
  })

  it("refuses past the byte bound even with few events", () => {
    const { res } = stalledResponse()
    const { sink } = stream(res, 1000, 10_000)
    expect(sink.offer(event("big", 12_000))).toBe(true)
    expect(sink.offer(event("small"))).toBe(false)
  })

  it("counts only the events still buffered as the client reads part of them", () => {
    const { res, state } = stalledResponse()
    const { sink } = stream(res, 3, 1 << 20)
    const sizes: number[] = []
    for (const name of ["a", "b", "c"]) {
      const before = state.buffered
      sink.offer(event(name))
      sizes.push(state.buffered - before)
    }
    // The client has read the first event and half of the second: two remain.
    state.buffered -= sizes[0]! + Math.floor(sizes[1]! / 2)
    expect(sink.offer(event("d"))).toBe(true)
    expect(sink.offer(event("e"))).toBe(false)
  })

  it("a write that throws ends this stream only, reported as a defect", () => {
    const { res, state } = stalledResponse()
    const defects: unknown[] = []
    const { sink, ends } = stream(res, 10, 1 << 20, defects)
    const cyclic: Record<string, unknown> = { metadata: { name: "loop" } }
    cyclic.self = cyclic
    expect(sink.offer({ type: "ADDED", object: cyclic as unknown as KObject })).toBe(true)
    expect(defects).toHaveLength(1)
    expect([sink.isClosed(), state.ended, ends()]).toEqual([true, true, 1])
    expect(sink.offer(event("after"))).toBe(true)
    expect(state.writes).toBe(0)
  })
})
