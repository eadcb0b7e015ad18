/**
 * Bodies that name something other than the request (issue 36): a binding for a pod of another namespace or
 * name, and DELETE options of another kind or with fields of the wrong type, are 400s — nothing is bound or
 * deleted.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import protobuf from "protobufjs"
import { httpServer } from "../support/transports.js"
import { send } from "../support/wire.js"
import { healthz, statusOf } from "./liveness.js"

const json = { "content-type": "application/json" }
const protobufType = { "content-type": "application/vnd.kubernetes.protobuf" }
const pods = "/api/v1/namespaces/default/pods"

/** A `runtime.Unknown` envelope (after the `k8s\0` magic): typeMeta (1), raw (2), contentType (4). */
const envelope = (raw: Uint8Array, opts: { kind?: string; contentType?: string } = {}) => {
  const w = protobuf.Writer.create()
  if (opts.kind !== undefined) w.uint32((1 << 3) | 2).fork().uint32((1 << 3) | 2).string("v1").uint32((2 << 3) | 2).string(opts.kind).ldelim()
  w.uint32((2 << 3) | 2).bytes(raw)
  if (opts.contentType !== undefined) w.uint32((4 << 3) | 2).string(opts.contentType)
  return Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), w.finish()])
}

const makePod = (base: string, name: string) =>
  Effect.gen(function* () {
    const made = yield* send(base, "POST", pods, { body: JSON.stringify({ metadata: { name }, spec: { containers: [{ name: "c", image: "i" }] } }), headers: json })
    expect(made.code).toBe(201)
  })

describe("pods/binding names the URL's pod", () => {
  it.scoped("another namespace or another name in the body: 400, the pod stays unbound", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* makePod(base, "p")
      const bind = (metadata: Record<string, unknown>) =>
        send(base, "POST", `${pods}/p/binding`, { body: JSON.stringify({ metadata, target: { kind: "Node", name: "n1" } }), headers: json })
      expect(statusOf(yield* bind({ name: "p", namespace: "kube-system" }))).toEqual({
        code: 400,
        kind: "Status",
        reason: "BadRequest",
        message: "the namespace of the provided object does not match the namespace sent on the request"
      })
      expect(statusOf(yield* bind({ name: "q" }))).toEqual({ code: 400, kind: "Status", reason: "BadRequest", message: "name in URL does not match name in Binding object" })
      expect((yield* send(base, "GET", `${pods}/p`)).json.spec.nodeName).toBeUndefined()
      // The request's own namespace, or none, binds.
      expect((yield* bind({ name: "p", namespace: "default" })).code).toBe(201)
      expect((yield* send(base, "GET", `${pods}/p`)).json.spec.nodeName).toBe("n1")
      expect(yield* healthz(base)).toEqual({ code: 200, fast: true })
    }))
})

describe("DELETE options decoded strictly", () => {
  it.scoped("wrong field types (JSON, protobuf envelope of JSON) and another kind: 400, nothing deleted", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* makePod(base, "keep")
      const policy = "json: cannot unmarshal number into Go struct field DeleteOptions.propagationPolicy of type v1.DeletionPropagation"
      const cases: ReadonlyArray<readonly [string, string | Buffer, Record<string, string>, string]> = [
        ["JSON", '{"propagationPolicy":5}', json, policy],
        ["JSON dryRun", '{"dryRun":"All"}', json, "json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string"],
        ["JSON preconditions", '{"preconditions":{"uid":7}}', json, "json: cannot unmarshal number into Go struct field Preconditions.preconditions.uid of type types.UID"],
        ["protobuf envelope of JSON", envelope(Buffer.from('{"propagationPolicy":5}'), { contentType: "application/json" }), protobufType, policy],
        ["protobuf of another kind", envelope(Buffer.from([0x0a, 0x02, 0x0a, 0x00]), { kind: "Pod" }), protobufType, "decoded object cannot be converted to DeleteOptions"]
      ]
      for (const [what, body, headers, message] of cases) {
        const reply = yield* send(base, "DELETE", `${pods}/keep`, { body, headers })
        expect({ what, ...statusOf(reply) }).toEqual({ what, code: 400, kind: "Status", reason: "BadRequest", message })
        expect((yield* send(base, "GET", `${pods}/keep`)).json.metadata.deletionTimestamp).toBeUndefined()
      }
      // Well-typed options still delete.
      const deleted = yield* send(base, "DELETE", `${pods}/keep`, { body: '{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}', headers: json })
      expect(deleted.code).toBe(200)
      expect(yield* healthz(base)).toEqual({ code: 200, fast: true })
    }))
})
