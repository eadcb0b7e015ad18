/**
 * What the replay runner (src/replay/Replay.ts) does between the plan and the wire, against a target that answers
 * slower than the log's gaps: requests on one object, and in a namespace after its create, keep the log's order;
 * a Lease update goes out with the target's current resourceVersion; a recorded 304 is matched by a 200.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import type { RawAnswer, RawRequest } from "../../src/client/Capabilities.js"
import { LatencyRecorder } from "../../src/loadgen/LatencyRecorder.js"
import { runReplay } from "../../src/replay/Replay.js"
import { auditEvent, type EventSpec, lines } from "./auditEvents.js"

const dir = mkdtempSync(join(tmpdir(), "replay-order-"))

interface Sent {
  readonly method: string
  readonly path: string
  readonly body?: string | undefined
  readonly headers: ReadonlyArray<string>
  readonly startedMs: number
  answeredMs: number
}

/** A target answering each request `delayMs` after it came, with `answer`; what came, in order. */
const slowTarget = (delayMs: number, answer: (q: RawRequest) => RawAnswer) => {
  const sent: Array<Sent> = []
  const t0 = Date.now()
  const client = {
    raw: {
      origin: "http://127.0.0.1:1",
      send: (q: RawRequest) =>
        Effect.suspend(() => {
          const s: Sent = { method: q.method, path: q.path, body: q.body, headers: q.headers, startedMs: Date.now() - t0, answeredMs: 0 }
          sent.push(s)
          return Effect.as(Effect.sleep(delayMs), answer(q)).pipe(Effect.tap(() => void (s.answeredMs = Date.now() - t0)))
        })
    }
  } as unknown as ApiClientService
  return { sent, layer: Layer.merge(Layer.succeed(ApiClient, client), Layer.effect(LatencyRecorder, LatencyRecorder.make())) }
}

const replayOf = (name: string, events: ReadonlyArray<EventSpec>, impersonate = false) => {
  const log = join(dir, name)
  writeFileSync(log, lines(events.map(auditEvent)))
  return runReplay({ logs: [log], filter: {}, speed: 1, scale: 1, impersonate, seed: false, loop: false, windowMs: 1000, maxInFlight: 100, allowRemote: false })
}

const ref = (resource: string, namespace: string | undefined, name?: string, apiVersion = "v1") => ({ resource, apiVersion, ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) })

describe("the replay runner against a slow target", () => {
  it.live("sends a request on an object, or in a namespace, only after the earlier one on it was answered; others go on time", () =>
    Effect.gen(function* () {
      const target = slowTarget(150, (q) => ({ code: q.method === "POST" ? 201 : 200 }))
      // each 5 ms apart in the log; the target takes 150 ms a request
      const report = yield* replayOf("order.log", [
        { at: 0, verb: "create", uri: "/api/v1/namespaces", code: 201, ref: ref("namespaces", undefined, "ns"), requestObject: { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns" } } },
        { at: 5, verb: "create", uri: "/api/v1/namespaces/ns/pods", code: 201, ref: ref("pods", "ns", "p"), requestObject: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } } },
        { at: 10, verb: "create", uri: "/api/v1/namespaces/ns/pods/p/binding", code: 201, ref: ref("pods", "ns", "p"), requestObject: { apiVersion: "v1", kind: "Binding", metadata: { name: "p" }, target: { kind: "Node", name: "n" } } },
        { at: 15, verb: "list", uri: "/api/v1/nodes", code: 200, ref: ref("nodes", undefined) }
      ]).pipe(Effect.provide(target.layer))
      expect(report.requests).toMatchObject({ sent: 4, matched: 4, mismatched: 0 })
      expect(target.sent).toHaveLength(4)
      const [ns, pod, binding, nodes] = sortedByPath(target.sent)
      expect(pod!.startedMs).toBeGreaterThanOrEqual(ns!.answeredMs)
      expect(binding!.startedMs).toBeGreaterThanOrEqual(pod!.answeredMs)
      // a request on nothing the others touch keeps its recorded time (15 ms, not after the 450 ms chain)
      expect(nodes!.startedMs).toBeLessThan(ns!.answeredMs)
    })
  )

  it.live("sends a Lease update with the target's resourceVersion, read first as the same request's identity", () =>
    Effect.gen(function* () {
      const target = slowTarget(1, (q) => (q.method === "GET" ? { code: 200, ...(q.readResourceVersion ? { resourceVersion: "42" } : {}) } : { code: 200 }))
      const lease = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "node-0", namespace: "kube-node-lease", resourceVersion: "7", uid: "u" }, spec: { holderIdentity: "node-0" } }
      const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "a", resourceVersion: "8" }, data: {} }
      const report = yield* replayOf("lease.log", [
        { at: 0, verb: "update", uri: "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-0", ref: ref("leases", "kube-node-lease", "node-0", "coordination.k8s.io/v1"), requestObject: lease },
        // 300 ms after: the order below holds even when the first start is late (a loaded machine stalls a test process)
        { at: 300, verb: "update", uri: "/api/v1/namespaces/a/configmaps/c", ref: ref("configmaps", "a", "c"), requestObject: cm }
      ], true).pipe(Effect.provide(target.layer))
      expect(report.requests).toMatchObject({ sent: 2, matched: 2 })
      expect(target.sent.map((s) => `${s.method} ${s.path}`)).toEqual([
        "GET /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-0",
        "PUT /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-0",
        "PUT /api/v1/namespaces/a/configmaps/c"
      ])
      expect(target.sent[0]!.headers).toEqual(["impersonate-user", "admin", "impersonate-group", "system:masters"])
      expect(target.sent[1]!.headers).toEqual(["content-type", "application/json", "impersonate-user", "admin", "impersonate-group", "system:masters"])
      expect(JSON.parse(target.sent[1]!.body!).metadata).toEqual({ name: "node-0", namespace: "kube-node-lease", resourceVersion: "42" })
      // a ConfigMap takes an unconditional update: no read, no resourceVersion
      expect(JSON.parse(target.sent[2]!.body!).metadata).toEqual({ name: "c", namespace: "a" })
    })
  )

  it.live("counts a recorded 304 answered 200 as the recorded code (the log keeps no If-None-Match)", () =>
    Effect.gen(function* () {
      const target = slowTarget(1, () => ({ code: 200 }))
      const report = yield* replayOf("304.log", [
        { at: 0, verb: "get", uri: "/openapi/v3?timeout=32s", code: 304 },
        { at: 5, verb: "get", uri: "/api/v1/namespaces/a/configmaps/c", code: 404, ref: ref("configmaps", "a", "c") }
      ]).pipe(Effect.provide(target.layer))
      expect(report.requests).toMatchObject({ sent: 2, matched: 1, mismatched: 1 })
      expect(report.mismatches.map((m) => `${m.recorded}→${m.replayed}`)).toEqual(["404→200"])
    })
  )

  it.live("warns before a --loop of a log that creates what it does not delete: every round after the first gets 409", () =>
    Effect.gen(function* () {
      const target = slowTarget(1, (q) => ({ code: q.method === "POST" ? 201 : 200 }))
      const log = join(dir, "loop.log")
      const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "qa1" } })
      writeFileSync(
        log,
        lines(
          [
            { at: 0, verb: "create", uri: "/api/v1/namespaces", code: 201, ref: ref("namespaces", undefined, "qa1"), requestObject: { apiVersion: "v1", kind: "Namespace", metadata: { name: "qa1" } } },
            { at: 5, verb: "create", uri: "/api/v1/namespaces/qa1/configmaps", code: 201, ref: ref("configmaps", "qa1", "kept"), requestObject: cm("kept") },
            { at: 10, verb: "create", uri: "/api/v1/namespaces/qa1/configmaps", code: 201, ref: ref("configmaps", "qa1", "gone"), requestObject: cm("gone") },
            { at: 15, verb: "delete", uri: "/api/v1/namespaces/qa1/configmaps/gone", code: 200, ref: ref("configmaps", "qa1", "gone") }
          ].map(auditEvent)
        )
      )
      const warnings: Array<string> = []
      const config = { logs: [log], filter: {}, speed: 1, scale: 1, impersonate: false, seed: false, windowMs: 1000, maxInFlight: 100, allowRemote: false }
      const progress = { ok: () => {}, error: () => {}, warn: (line: string) => void warnings.push(line) }
      yield* runReplay({ ...config, loop: true, loopForMs: 100 }, progress).pipe(Effect.provide(target.layer))
      expect(warnings).toEqual([
        'the log creates 2 objects it does not delete (namespaces/qa1, configmaps/qa1/kept): with loop, every round after the first creates them again and gets 409 where the log had 201 (docs/replay.md "Scaling a log")'
      ])
      // once through, the log's leftovers are no problem
      yield* runReplay({ ...config, loop: false }, progress).pipe(Effect.provide(target.layer))
      expect(warnings).toHaveLength(1)
    })
  )
})

/** The four requests of the ordering case by what they are. */
const sortedByPath = (sent: ReadonlyArray<Sent>): Array<Sent> => {
  const find = (f: (s: Sent) => boolean) => sent.find(f)!
  return [
    find((s) => s.path === "/api/v1/namespaces"),
    find((s) => s.path === "/api/v1/namespaces/ns/pods"),
    find((s) => s.path.endsWith("/binding")),
    find((s) => s.path === "/api/v1/nodes")
  ]
}
