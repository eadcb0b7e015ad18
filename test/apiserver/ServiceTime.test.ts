import { describe, expect, it } from "@effect/vitest"
import { Cause, Clock, Effect, Either, Fiber, Layer, ParseResult, Schema } from "effect"
import { ConfigMaps, Leases, Namespaces, Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { Completion, defaultParameters, dispersionFactor, listEstimate, modelledClient, parameters, ServiceTime, ServiceTimeModel, ServiceTimeSettings, uniformOf } from "../../simulator/apiserver/ServiceTime.js"
import * as SeededRandom from "../../simulator/kernel/SeededRandom.js"
import * as Simulation from "../../simulator/kernel/Simulation.js"
import * as InProcessClient from "../../simulator/apiserver/InProcessClient.js"
import { jsonLength } from "../../simulator/apiserver/JsonLength.js"
import { nodeLeaseNamespace } from "../../src/api/WellKnown.js"

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
    expect(m.complete(30, "mutating", 0, 0)).toEqual({ end: 40, givenUp: false })
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

  it("modelledClient: an identity's requests are booked in its own priority level and flow, the default user's in global-default", () => {
    const sim = Simulation.make({ seed: 1 })
    const model = new ServiceTimeModel()
    const node = { user: "system:node:node-3", groups: ["system:nodes", "system:authenticated"] }
    const exit = sim.run(
      Effect.gen(function* () {
        const inner = yield* ApiClient
        yield* modelledClient(inner, model, node).list(Pods, { fieldSelector: "spec.nodeName=node-3" })
        yield* modelledClient(inner, model, node).get(Namespaces, "default")
        yield* modelledClient(inner, model).list(Pods)
      }).pipe(Effect.provide(InProcessClient.layer.pipe(Layer.provideMerge(ApiServer.layer({ seed: 1 })))))
    )
    expect(exit?._tag).toBe("Success")
    const levels = model.apf!.metrics()
    expect(levels["system"]?.dispatched).toBe(2)
    expect(levels["global-default"]?.dispatched).toBe(1)
  })

  it("modelledClient: a read reaches the server when dispatched — at once, or after its wait in the queue or a server pause — and its latency counts what it returned", () => {
    const sim = Simulation.make({ seed: 1 })
    // 3 seats in all: global-default gets one, held 100 ms by a read
    const model = new ServiceTimeModel({ ...defaultParameters, maxRequestsInflight: 2, maxMutatingRequestsInflight: 1, readBaseMs: 100 })
    const exit = sim.run(
      Effect.gen(function* () {
        const inner = yield* ApiClient
        const server = yield* ApiServer
        const client = modelledClient(inner, model)
        yield* inner.create(ConfigMaps, { metadata: { name: "x" }, data: { v: "1" } }, { namespace: "default" })
        const timedGet = Effect.gen(function* () {
          const t0 = yield* Clock.currentTimeMillis
          const obj = yield* client.get(ConfigMaps, "x", { namespace: "default" })
          return { v: (obj.data as { v: string }).v, from: t0, to: yield* Clock.currentTimeMillis, bytes: jsonLength(obj) }
        })
        const first = yield* Effect.fork(timedGet)
        const second = yield* Effect.fork(timedGet) // queued behind the first until 100 ms
        yield* Effect.sleep(50)
        yield* inner.update(ConfigMaps, { metadata: { name: "x", namespace: "default" }, data: { v: "2" } }, { namespace: "default" })
        const answers = [yield* Fiber.join(first), yield* Fiber.join(second)]
        yield* server.pause(30)
        const paused = yield* timedGet
        return { answers, paused }
      }).pipe(Effect.provide(InProcessClient.layer.pipe(Layer.provideMerge(ApiServer.layer({ seed: 1 })))))
    )
    if (exit?._tag !== "Success") throw new Error(String(exit && Cause.pretty((exit as { cause: Cause.Cause<unknown> }).cause)))
    const { answers, paused } = (exit as { value: { answers: Array<{ v: string; from: number; to: number; bytes: number }>; paused: { v: string; from: number; to: number; bytes: number } } }).value
    const service = (bytes: number) => model.serviceMs("read", 1, bytes)
    expect(answers.map((a) => a.v)).toEqual(["1", "2"])
    expect(answers[0]!.to - answers[0]!.from).toBeCloseTo(service(answers[0]!.bytes), 3)
    // the first holds its seat for the size it was booked with (one object; a GET's size is known only once answered)
    expect(answers[1]!.to - answers[1]!.from).toBeCloseTo(service(0) + service(answers[1]!.bytes), 3)
    // booked on arrival, dispatched at once, but the paused server answers 30 ms later: the service time follows
    expect(paused.v).toBe("2")
    expect(paused.to - paused.from).toBeCloseTo(30 + service(paused.bytes), 3)
    expect(model.apf!.metrics()["global-default"]?.dispatched).toBe(3)
  })

  it("complete: a node agent's request rejected on every retry is given up at its last rejection, and says so", () => {
    // node-high gets one seat of 3; the first lease write holds it for 1,000 s
    const model = new ServiceTimeModel({ ...defaultParameters, maxRequestsInflight: 2, maxMutatingRequestsInflight: 1, writeBaseMs: 1_000_000, perKiBMs: 0 })
    const node0 = { user: "system:node:node-0", groups: ["system:nodes", "system:authenticated"] }
    const lease = model.requests.of("update", Leases, nodeLeaseNamespace, undefined, node0)
    expect(model.complete(0, "mutating", 0, 0, lease)).toEqual({ end: 1_000_000, givenUp: false })
    expect(model.givenUp).toBe(0)
    // the second waits 15 s (the request wait limit) and is rejected, 1 s later again, …: 11 tries, the last from 160 s
    expect(model.complete(0, "mutating", 0, 0, lease)).toEqual({ end: 175_000, givenUp: true })
    expect(model.givenUp).toBe(1)
    expect(model.apf!.metrics()["node-high"]?.rejectedBy["time-out"]).toBe(11)
    // a request of another level (pod status → system) is answered
    expect(model.complete(175_000, "mutating", 0, 0, model.requests.of("patch", Pods, "default", "status", node0))).toEqual({ end: 1_175_000, givenUp: false })
    expect(model.givenUp).toBe(1)
    // and so is one booked without APF's request (the two pools)
    expect(model.complete(175_000, "mutating", 0, 0, lease).givenUp).toBe(true)
    expect(model.complete(175_000, "read", 0, 0).givenUp).toBe(false)
    expect(model.givenUp).toBe(2)
    // into the caller's own record, reused: a given-up booking and the next one write the same object
    const record = new Completion()
    expect(model.complete(175_000, "mutating", 0, 0, lease, record)).toBe(record)
    expect(record).toMatchObject({ givenUp: true })
    expect(model.complete(175_000, "read", 0, 0, undefined, record)).toBe(record)
    expect(record).toMatchObject({ end: 175_001, givenUp: false })
  })

  it("dispersion: a log-normal factor of median 1 whose p99 is the class's dispersion, from the seeded source only", () => {
    const draws = (seed: number) => {
      const m = new ServiceTimeModel({ ...defaultParameters, readDispersion: 3, writeBaseMs: 2, perKiBMs: 0 }, uniformOf(SeededRandom.make(seed)))
      return Array.from({ length: 20_000 }, () => m.admit(0, "read", 0, 0)).map((a) => a.end - a.start).sort((a, b) => a - b)
    }
    const times = draws(7)
    const quantile = (q: number) => times[Math.ceil(q * times.length) - 1]!
    // readBaseMs 1: median 1 ms, p99 3 ms (within the sampling error of 20,000 draws)
    expect(quantile(0.5)).toBeGreaterThan(0.97)
    expect(quantile(0.5)).toBeLessThan(1.03)
    expect(quantile(0.99)).toBeGreaterThan(2.8)
    expect(quantile(0.99)).toBeLessThan(3.2)
    expect(draws(7)).toEqual(times)
    expect(draws(8)).not.toEqual(times)
    expect(dispersionFactor(3, () => 0.5)).toBeCloseTo(Math.exp((Math.log(3) / 2.3263478740408408) * -Math.sqrt(2 * Math.log(2))), 12)
  })

  it("without dispersion nothing is drawn: every request of a class costs the same", () => {
    let drawn = 0
    const m = new ServiceTimeModel({ ...defaultParameters, writeDispersion: 4 }, () => (drawn++, 0.25))
    for (let i = 0; i < 10; i++) expect(m.admit(i * 10, "read", 100, 0)).toEqual({ start: i * 10, end: i * 10 + 1.5 })
    expect(drawn).toBe(0)
    m.admit(0, "mutating", 0, 0)
    expect(drawn).toBe(2)
  })

  it("a dispersion below 1 is rejected at the edge with what it means", () => {
    const decoded = Schema.decodeUnknownEither(ServiceTimeSettings)({ readDispersion: 0.5 })
    expect(Either.isLeft(decoded)).toBe(true)
    if (Either.isLeft(decoded)) {
      const message = ParseResult.TreeFormatter.formatErrorSync(decoded.left)
      expect(message).toContain("readDispersion")
      expect(message).toContain("expected a number ≥ 1 (p99 ÷ p50 of the service time; 1: no dispersion)")
    }
    expect(Schema.decodeUnknownSync(ServiceTimeSettings)({ readDispersion: 1, writeDispersion: 2.5 })).toEqual({ readDispersion: 1, writeDispersion: 2.5 })
  })

  it("sharedSeats: reads and writes queue for one pool (a server on one thread), and API Priority and Fairness is off", () => {
    const p = parameters({ sharedSeats: 1, readBaseMs: 1, perObjectMs: 0.005, writeBaseMs: 2, perKiBMs: 0 })
    expect(p.apf).toBe(false)
    const m = new ServiceTimeModel(p)
    expect(m.apf).toBeUndefined()
    expect(m.admit(0, "read", 1000, 0)).toEqual({ start: 0, end: 6 })
    // a write arriving during the LIST waits for it; a read arriving meanwhile waits for both
    expect(m.admit(1, "mutating", 0, 0)).toEqual({ start: 6, end: 8 })
    expect(m.admit(2, "read", 0, 0)).toEqual({ start: 8, end: 9 })
    // without it the write is served at once, beside the LIST
    const separate = new ServiceTimeModel({ ...p, sharedSeats: undefined, apf: false })
    separate.admit(0, "read", 1000, 0)
    expect(separate.admit(1, "mutating", 0, 0)).toEqual({ start: 1, end: 3 })
  })

  it("sharedSeats with apf: true is refused at the edge, naming the field", () => {
    const decoded = Schema.decodeUnknownEither(ServiceTimeSettings)({ sharedSeats: 1, apf: true })
    expect(Either.isLeft(decoded)).toBe(true)
    if (Either.isLeft(decoded)) {
      const message = ParseResult.TreeFormatter.formatErrorSync(decoded.left)
      expect(message).toContain("sharedSeats")
      expect(message).toContain("one shared pool replaces API Priority and Fairness's priority levels: leave apf out or set it to false")
    }
    expect(Schema.decodeUnknownSync(ServiceTimeSettings)({ sharedSeats: 2, apf: false })).toEqual({ sharedSeats: 2, apf: false })
    expect(Either.isLeft(Schema.decodeUnknownEither(ServiceTimeSettings)({ sharedSeats: 0 }))).toBe(true)
  })

  it("a LIST pinned to the indexed field is expected to process that value's objects, not every stored one", () => {
    // 150,000 pods, 30 on node-7: a kubelet-style LIST holds its seats for 30 objects' time (the watch cache reads
    // its spec.nodeName index), where the stored count made 5,000 of them take 15 virtual minutes of global-default
    const m = new ServiceTimeModel()
    m.objectCount = () => 150_000
    m.indexedObjectCount = (resource, value) => (resource === Pods && value === "node-7" ? 30 : 0)
    expect(listEstimate(m, Pods, { fieldSelector: "spec.nodeName=node-7" })).toEqual({ objects: 30, bytes: 0 })
    expect(listEstimate(m, Pods, { fieldSelector: "spec.nodeName=node-7,status.phase=Running", labelSelector: "app=x" })).toEqual({ objects: 30, bytes: 0 })
    expect(listEstimate(m, Pods, { fieldSelector: "spec.nodeName=node-7", limit: 10 })).toEqual({ objects: 10, bytes: 0 })
    expect(listEstimate(m, Pods, { fieldSelector: "spec.nodeName=node-8" })).toEqual({ objects: 0, bytes: 0 })
    // not pinned (other fields, `!=`), or an invalid selector: every stored object, as before
    expect(listEstimate(m, Pods, { fieldSelector: "status.phase=Running" })).toEqual({ objects: 150_000, bytes: 0 })
    expect(listEstimate(m, Pods, { fieldSelector: "spec.nodeName!=node-7" })).toEqual({ objects: 150_000, bytes: 0 })
    expect(listEstimate(m, Pods, { fieldSelector: "spec.nodeName" })).toEqual({ objects: 150_000, bytes: 0 })
    expect(listEstimate(m, Pods, { limit: 500 })).toEqual({ objects: 500, bytes: 0 })
    expect(listEstimate(m, Namespaces, { fieldSelector: "metadata.name=node-7" })).toEqual({ objects: 150_000, bytes: 0 })
  })
})
