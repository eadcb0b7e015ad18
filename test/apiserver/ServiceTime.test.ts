import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { Namespaces } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { defaultParameters, ServiceTime, ServiceTimeModel } from "../../simulator/apiserver/ServiceTime.js"
import * as Simulation from "../../simulator/kernel/Simulation.js"
import * as InProcessClient from "../../simulator/apiserver/InProcessClient.js"

describe("ServiceTimeModel", () => {
  it("base + per object + per KiB", () => {
    const m = new ServiceTimeModel()
    expect(m.serviceMs("read", 0, 0)).toBe(1)
    expect(m.serviceMs("mutating", 0, 1024)).toBeCloseTo(2.01, 9)
    expect(m.serviceMs("read", 1000, 0)).toBeCloseTo(6, 9)
  })

  it("queues FIFO for the first free seat once every seat of the class is taken", () => {
    const m = new ServiceTimeModel({ ...defaultParameters, maxMutatingRequestsInflight: 2, writeBaseMs: 10, perKiBMs: 0 })
    expect(m.admit(0, "mutating", 0, 0)).toEqual({ start: 0, end: 10 })
    expect(m.admit(0, "mutating", 0, 0)).toEqual({ start: 0, end: 10 })
    expect(m.admit(0, "mutating", 0, 0)).toEqual({ start: 10, end: 20 })
    expect(m.admit(1, "mutating", 0, 0)).toEqual({ start: 10, end: 20 })
    expect(m.admit(1, "read", 0, 0)).toEqual({ start: 1, end: 2 })
    expect(m.complete(30, "mutating", 0, 0)).toBe(40)
  })

  it("layerClient: each call takes its modelled time on the (virtual) clock", () => {
    const sim = Simulation.make({ seed: 1 })
    const layers = ServiceTime.layerClient.pipe(
      Layer.provide(InProcessClient.layer),
      Layer.provide(ServiceTime.layer({ readBaseMs: 5, perObjectMs: 1 })),
      Layer.provideMerge(ApiServer.layer({ seed: 1 }))
    )
    const exit = sim.run(
      Effect.gen(function* () {
        const client = yield* ApiClient
        const t0 = yield* Clock.currentTimeMillis
        const list = yield* client.list(Namespaces)
        const t1 = yield* Clock.currentTimeMillis
        return { items: list.items.length, elapsed: t1 - t0 }
      }).pipe(Effect.provide(layers))
    )
    expect(exit?._tag).toBe("Success")
    const value = (exit as { value: { items: number; elapsed: number } }).value
    expect(value.elapsed).toBeCloseTo(5 + value.items, 6)
  })
})
