import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { WatchEvent } from "../../../src/api/Object.js"
import { decodeObject, encodeObject, encodeWatchFrame, magic, missingMagicMessage, watchFrameDecoder } from "../../../src/api/protobuf/Envelope.js"
import { configMap, everyKind, lease, pod } from "./fixtures.js"

const encode = (obj: Readonly<Record<string, unknown>>): Uint8Array => Either.getOrThrow(encodeObject(obj))
const decode = (bytes: Uint8Array) => Either.getOrThrow(decodeObject(bytes)).object
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")

describe("protobuf envelope", () => {
  it("writes the magic, then runtime.Unknown with typeMeta, raw and empty contentEncoding and contentType", () => {
    const bytes = encode({ kind: "Namespace", apiVersion: "v1", metadata: { name: "x" } })
    // 6b387300 | 0a 0f {0a 02 "v1" 12 09 "Namespace"} | 12 05 {0a 03 {0a 01 "x"}} | 1a 00 | 22 00
    expect(hex(bytes)).toBe("6b387300" + "0a0f0a0276311209" + Buffer.from("Namespace").toString("hex") + "12050a030a0178" + "1a002200")
    expect(hex(bytes.subarray(0, 4))).toBe(hex(magic))
  })

  it.each(Object.entries(everyKind))("round-trips a rich %s losslessly", (_name, obj) => {
    expect(decode(encode(obj))).toEqual(obj)
  })

  it("writes apiVersion and kind only in the envelope and puts them first when decoding", () => {
    const decoded = decode(encode(lease))
    expect(Object.keys(decoded).slice(0, 2)).toEqual(["kind", "apiVersion"])
    expect(decoded.apiVersion).toBe("coordination.platform/v1")
  })

  it("serves the upstream group names with the same messages", () => {
    const upstream = { ...lease, apiVersion: "coordination.k8s.io/v1" }
    expect(decode(encode(upstream))).toEqual(upstream)
    const bytes = encode(upstream)
    expect(Buffer.from(bytes).includes(Buffer.from("coordination.k8s.io/v1"))).toBe(true)
  })

  it("normalises what upstream normalises: Time to whole UTC seconds, numeric quantities to strings, dropped zero omitempty scalars", () => {
    const decoded = decode(
      encode({
        kind: "Pod",
        apiVersion: "v1",
        metadata: { name: "p", creationTimestamp: "2024-05-01T14:00:00.75+02:00", generateName: "" },
        spec: { containers: [{ name: "c", resources: { limits: { cpu: 2 } } }] }
      })
    )
    expect(decoded).toEqual({
      kind: "Pod",
      apiVersion: "v1",
      metadata: { name: "p", creationTimestamp: "2024-05-01T12:00:00Z" },
      spec: { containers: [{ name: "c", resources: { limits: { cpu: "2" } } }] }
    })
  })

  it("refuses a field the schema does not know, naming its path, instead of dropping it", () => {
    const result = encodeObject({ ...pod, spec: { ...pod.spec, containers: [{ name: "c", colour: "blue" }] } })
    expect(Either.isLeft(result) && result.left.message).toBe(
      "object v1/Pod cannot be encoded to a protobuf message without loss: unknown field for v1.Container: spec.containers[0].colour"
    )
    const wrongType = encodeObject({ ...configMap, data: { a: 1 } })
    expect(Either.isLeft(wrongType) && wrongType.left.message).toBe(
      "object v1/ConfigMap cannot be encoded to a protobuf message without loss: expected string, got number: data.a"
    )
    const noKind = encodeObject({ kind: "Widget", apiVersion: "example.com/v1", metadata: {} })
    expect(Either.isLeft(noKind) && noKind.left.message).toBe(
      "object example.com/v1/Widget does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message"
    )
  })

  it("refuses bytes without the magic and field numbers the schema does not know", () => {
    const noMagic = decodeObject(Buffer.from('{"kind":"Pod"}'))
    expect(Either.isLeft(noMagic) && noMagic.left.message).toBe(missingMagicMessage)
    // A Namespace whose spec carries field 99 (varint 1).
    const bytes = encode({ kind: "Namespace", apiVersion: "v1", metadata: { name: "x" } })
    const raw = Buffer.concat([Buffer.from("0a030a0178", "hex"), Buffer.from("1203b80601", "hex")])
    const forged = Buffer.concat([Buffer.from(bytes.subarray(0, 21)), Buffer.from([0x12, raw.length]), raw, Buffer.from("1a002200", "hex")])
    const result = decodeObject(forged)
    expect(Either.isLeft(result) && result.left.message).toBe("unknown field number 103 in v1.NamespaceSpec at spec")
  })

  it("keeps items: [] on an empty list", () => {
    const empty = { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "5" }, items: [] }
    expect(decode(encode(empty))).toEqual(empty)
  })

  it("fills an empty typeMeta from the defaults (the request's URL)", () => {
    const bytes = Buffer.concat([Buffer.from(magic), Buffer.from("0a00" + "12050a030a0178" + "1a002200", "hex")])
    expect(Either.getOrThrow(decodeObject(bytes, { apiVersion: "v1", kind: "ConfigMap" })).object).toEqual({
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { name: "x" }
    })
  })
})

describe("protobuf watch frames", () => {
  const events: WatchEvent[] = [
    { type: "ADDED", object: pod as never },
    { type: "BOOKMARK", object: { kind: "Pod", apiVersion: "v1", metadata: { resourceVersion: "77", annotations: { "k8s.io/initial-events-end": "true" } } } },
    { type: "ERROR", object: everyKind.status as never }
  ]

  it("frames each event as a big-endian length and a WatchEvent whose object is a full envelope", () => {
    const frame = Either.getOrThrow(encodeWatchFrame(events[1]!))
    const length = Buffer.from(frame).readUInt32BE(0)
    expect(length).toBe(frame.length - 4)
    // WatchEvent: 0a 08 "BOOKMARK" 12 <len> { 0a <len> <magic …> }
    expect(hex(frame.subarray(4, 14))).toBe("0a08" + Buffer.from("BOOKMARK").toString("hex"))
    expect(frame[14]).toBe(0x12)
    expect(frame[16]).toBe(0x0a)
    expect(hex(frame.subarray(18, 22))).toBe(hex(magic))
  })

  it("splits a stream cut at any byte back into the events", () => {
    const stream = Buffer.concat(events.map((e) => Either.getOrThrow(encodeWatchFrame(e))))
    for (const cut of [1, 3, 4, 5, 17, stream.length - 1]) {
      const decoder = watchFrameDecoder()
      expect([...decoder(stream.subarray(0, cut)), ...decoder(stream.subarray(cut))]).toEqual(events)
    }
  })
})
