/**
 * JSON objects ↔ protobuf message bytes, walking a {@link MessagePlan}. The JSON side is what the server stores
 * and serves; the bytes are what upstream's generated Go code reads and writes.
 *
 * Lossless by refusal: a JSON field the message does not know, or a value of the wrong JSON type, cannot be
 * written, so encoding fails naming its path ({@link ProtobufEncodeError}) instead of dropping it; the caller
 * answers in JSON or with an error (docs/protobuf.md). Decoding likewise fails on a field number the schema
 * does not know ({@link ProtobufDecodeError}) rather than skipping it as Go's generated code does.
 *
 * What a round trip normalises, as upstream's own JSON ↔ protobuf conversion does: `Time` keeps whole seconds
 * in UTC (`time_proto.go` drops the nanoseconds), a `Quantity` given as a JSON number comes back as a string,
 * JSON `null` for a non-time field and zero values of `omitempty` scalars are not sent.
 */
import protobuf from "protobufjs"
import { isRecord } from "../Object.js"
import type { FieldPlan, MessagePlan, ScalarType, SpecialKind, ValuePlan } from "./Schema.js"

export class ProtobufEncodeError extends Error {
  constructor(
    /** `spec.containers[0].foo`, as the strict JSON decoder names fields. */
    readonly path: string,
    readonly reason: string
  ) {
    super(path ? `${reason}: ${path}` : reason)
  }
}

export class ProtobufDecodeError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string
  ) {
    super(path ? `${reason} at ${path}` : reason)
  }
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key)

// --- encoding -----------------------------------------------------------------------------------------------

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

/** Seconds and nanoseconds of an RFC 3339 time, or `undefined` when the text is not one. */
const parseTime = (text: string): { seconds: number; nanos: number } | undefined => {
  const m = rfc3339.exec(text)
  if (!m) return undefined
  const ms = Date.parse(text)
  if (Number.isNaN(ms)) return undefined
  const fraction = m[7] ? m[7].slice(1) : ""
  const nanos = fraction === "" ? 0 : Number(fraction.slice(0, 9).padEnd(9, "0"))
  return { seconds: Math.floor(ms / 1000), nanos }
}

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

const typeMismatch = (path: string, expected: string, value: unknown) =>
  new ProtobufEncodeError(path, `expected ${expected}, got ${value === null ? "null" : Array.isArray(value) ? "array" : typeof value}`)

const writeScalar = (w: protobuf.Writer, type: ScalarType, value: unknown, path: string): void => {
  switch (type) {
    case "string":
      if (typeof value !== "string") throw typeMismatch(path, "string", value)
      w.string(value)
      return
    case "bool":
      if (typeof value !== "boolean") throw typeMismatch(path, "boolean", value)
      w.bool(value)
      return
    case "bytes":
      if (typeof value !== "string" || !base64.test(value)) throw typeMismatch(path, "base64 string", value)
      w.bytes(Buffer.from(value, "base64"))
      return
    case "double":
    case "float":
      if (typeof value !== "number") throw typeMismatch(path, "number", value)
      if (type === "double") w.double(value)
      else w.float(value)
      return
    default:
      if (typeof value !== "number" || !Number.isInteger(value)) throw typeMismatch(path, "integer", value)
      if ((type === "int32" && (value < -(2 ** 31) || value >= 2 ** 31)) || (type === "uint32" && (value < 0 || value >= 2 ** 32)))
        throw new ProtobufEncodeError(path, `${value} out of range for ${type}`)
      if (type === "int32") w.int32(value)
      else if (type === "uint32") w.uint32(value)
      else if (type === "uint64") w.uint64(value)
      else w.int64(value)
  }
}

const writeSpecial = (w: protobuf.Writer, kind: SpecialKind, value: unknown, path: string): void => {
  switch (kind) {
    case "time":
    case "microtime": {
      // A zero time is JSON null and an empty message (time_proto.go: Marshal of a zero Time is nil).
      w.fork()
      if (value !== null) {
        const t = typeof value === "string" ? parseTime(value) : undefined
        if (!t) throw typeMismatch(path, "RFC 3339 time", value)
        w.uint32(8).int64(t.seconds)
        if (kind === "microtime" && t.nanos !== 0) w.uint32(16).int32(t.nanos - (t.nanos % 1000))
      }
      w.ldelim()
      return
    }
    case "quantity": {
      if (typeof value !== "string" && typeof value !== "number") throw typeMismatch(path, "quantity", value)
      w.fork().uint32(10).string(String(value)).ldelim()
      return
    }
    case "intOrString": {
      // intstr's generated Marshal writes all three fields.
      if (typeof value === "number" && Number.isInteger(value)) w.fork().uint32(8).int64(0).uint32(16).int32(value).uint32(26).string("").ldelim()
      else if (typeof value === "string") w.fork().uint32(8).int64(1).uint32(16).int32(0).uint32(26).string(value).ldelim()
      else throw typeMismatch(path, "integer or string", value)
      return
    }
    case "fieldsV1":
    case "rawExtension": {
      // Both hold the JSON text of their value (FieldsV1.Raw, RawExtension.Raw).
      w.fork().uint32(10).bytes(Buffer.from(JSON.stringify(value))).ldelim()
      return
    }
  }
}

/**
 * The message bytes of immutable objects (the server's stored versions), so a list of objects already encoded
 * costs a copy per item. Only objects that carry their own `metadata` (a kind, such as a list item) are cached.
 */
export type ItemCache = WeakMap<object, Uint8Array>

const writeValue = (w: protobuf.Writer, v: ValuePlan, value: unknown, path: string, cache: ItemCache | undefined): void => {
  switch (v._tag) {
    case "scalar":
      return writeScalar(w, v.type, value, path)
    case "special":
      return writeSpecial(w, v.kind, value, path)
    case "message": {
      if (!isRecord(value)) throw typeMismatch(path, "object", value)
      if (cache !== undefined && v.message.byJson.has("metadata")) {
        let bytes = cache.get(value)
        if (bytes === undefined) {
          const own = protobuf.Writer.create()
          writeFields(own, v.message, value, path, cache)
          bytes = own.finish()
          cache.set(value, bytes)
        }
        w.bytes(bytes)
        return
      }
      w.fork()
      writeFields(w, v.message, value, path, cache)
      w.ldelim()
    }
  }
}

const isTimeLike = (v: ValuePlan) => v._tag === "special" && (v.kind === "time" || v.kind === "microtime")

const writeField = (w: protobuf.Writer, f: FieldPlan, value: unknown, path: string, cache: ItemCache | undefined): void => {
  if (value === null && !(isTimeLike(f.value) && !f.repeated && !f.map)) return
  if (f.map) {
    if (!isRecord(value)) throw typeMismatch(path, "object", value)
    const valueTag = f.value._tag === "scalar" ? (2 << 3) | (f.value.type === "string" || f.value.type === "bytes" ? 2 : 0) : (2 << 3) | 2
    for (const key of Object.keys(value)) {
      w.uint32(f.tag).fork().uint32(10).string(key).uint32(valueTag)
      writeValue(w, f.value, value[key], join(path, key), cache)
      w.ldelim()
    }
    return
  }
  if (f.repeated) {
    if (!Array.isArray(value)) throw typeMismatch(path, "array", value)
    for (let i = 0; i < value.length; i++) {
      w.uint32(f.tag)
      writeValue(w, f.value, value[i], `${path}[${i}]`, cache)
    }
    return
  }
  w.uint32(f.tag)
  writeValue(w, f.value, value, path, cache)
}

/** The field of `plan` (or of one of its inline messages, depth first) that a JSON key belongs to. */
const inlineOwner = (plan: MessagePlan, key: string): FieldPlan | undefined => {
  for (const inline of plan.inlines) {
    if (inline.value._tag !== "message") continue
    const inner = inline.value.message
    if (inner.byJson.has(key) || inlineOwner(inner, key)) return inline
  }
  return undefined
}

const writeFields = (
  w: protobuf.Writer,
  plan: MessagePlan,
  obj: Readonly<Record<string, unknown>>,
  path: string,
  cache: ItemCache | undefined,
  topLevel = false
): void => {
  let inlineParts: Map<FieldPlan, Record<string, unknown>> | undefined
  for (const key in obj) {
    const field = plan.byJson.get(key)
    const value = obj[key]
    if (field !== undefined) {
      writeField(w, field, value, join(path, key), cache)
      continue
    }
    // An object's `apiVersion` and `kind` travel in the envelope's typeMeta, and list items carry none.
    if ((key === "apiVersion" || key === "kind") && (topLevel || plan.byJson.has("metadata"))) continue
    const owner = plan.inlines.length > 0 ? inlineOwner(plan, key) : undefined
    if (owner === undefined) throw new ProtobufEncodeError(join(path, key), `unknown field for ${plan.goName}`)
    inlineParts ??= new Map()
    let part = inlineParts.get(owner)
    if (!part) inlineParts.set(owner, (part = {}))
    part[key] = value
  }
  if (inlineParts)
    for (const [field, part] of inlineParts) {
      if (field.value._tag !== "message") continue
      w.uint32(field.tag).fork()
      writeFields(w, field.value.message, part, path, cache)
      w.ldelim()
    }
}

/** Writes the message bytes of a JSON object (without a length prefix); `cache` only for immutable objects. */
export const encodeMessage = (
  plan: MessagePlan,
  obj: Readonly<Record<string, unknown>>,
  writer = protobuf.Writer.create(),
  cache?: ItemCache
): protobuf.Writer => {
  writeFields(writer, plan, obj, "", cache, true)
  return writer
}

// --- decoding -----------------------------------------------------------------------------------------------

/** A 64-bit integer as a JS number (exact up to 2^53, as JSON numbers are). */
const int64Number = (v: number | protobuf.Long): number =>
  typeof v === "number" ? v : (v.unsigned ? v.high >>> 0 : v.high) * 4294967296 + (v.low >>> 0)

const twoDigits = (n: number) => (n < 10 ? `0${n}` : String(n))
/** Go's RFC 3339 in UTC (`2006-01-02T15:04:05Z`), with `fraction` digits of sub-second precision. */
export const formatTime = (seconds: number, nanos: number, fraction: 0 | 6): string => {
  const d = new Date(seconds * 1000)
  const date = `${d.getUTCFullYear().toString().padStart(4, "0")}-${twoDigits(d.getUTCMonth() + 1)}-${twoDigits(d.getUTCDate())}`
  const time = `${twoDigits(d.getUTCHours())}:${twoDigits(d.getUTCMinutes())}:${twoDigits(d.getUTCSeconds())}`
  return fraction === 0 ? `${date}T${time}Z` : `${date}T${time}.${String(Math.floor(nanos / 1000)).padStart(6, "0")}Z`
}

const wrongWireType = (path: string, got: number, plan: MessagePlan) => new ProtobufDecodeError(path, `wrong wire type ${got} in ${plan.goName}`)

const readScalar = (r: protobuf.Reader, type: ScalarType): unknown => {
  switch (type) {
    case "string":
      return r.string()
    case "bool":
      return r.bool()
    case "bytes":
      return Buffer.from(r.bytes()).toString("base64")
    case "double":
      return r.double()
    case "float":
      return r.float()
    case "int32":
      return r.int32()
    case "uint32":
      return r.uint32()
    case "uint64":
      return int64Number(r.uint64())
    case "int64":
      return int64Number(r.int64())
  }
}

const isZero = (v: unknown) => v === "" || v === 0 || v === false

/** Decodes one length-delimited special message at the reader's position. */
const readSpecial = (r: protobuf.Reader, kind: SpecialKind, path: string): unknown => {
  const end = r.uint32() + r.pos
  let a: number | undefined
  let b = 0
  let s = ""
  let raw: Uint8Array | undefined
  let any = false
  while (r.pos < end) {
    const tag = r.uint32()
    any = true
    const id = tag >>> 3
    switch (kind) {
      case "time":
      case "microtime":
        if (id === 1) a = int64Number(r.int64())
        else if (id === 2) b = r.int32()
        else r.skipType(tag & 7)
        break
      case "quantity":
        if (id === 1) s = r.string()
        else r.skipType(tag & 7)
        break
      case "intOrString":
        if (id === 1) a = int64Number(r.int64())
        else if (id === 2) b = r.int32()
        else if (id === 3) s = r.string()
        else r.skipType(tag & 7)
        break
      case "fieldsV1":
      case "rawExtension":
        if (id === 1) raw = r.bytes()
        else r.skipType(tag & 7)
    }
  }
  switch (kind) {
    case "time":
      return any ? formatTime(a ?? 0, 0, 0) : null
    case "microtime":
      return any ? formatTime(a ?? 0, b, 6) : null
    case "quantity":
      return s
    case "intOrString":
      return a === 1 ? s : b
    case "fieldsV1":
    case "rawExtension": {
      if (!raw || raw.length === 0) return kind === "fieldsV1" ? {} : null
      try {
        return JSON.parse(Buffer.from(raw).toString("utf8")) as unknown
      } catch {
        throw new ProtobufDecodeError(path, "raw bytes are not JSON")
      }
    }
  }
}

const readValue = (r: protobuf.Reader, v: ValuePlan, path: string): unknown => {
  switch (v._tag) {
    case "scalar":
      return readScalar(r, v.type)
    case "special":
      return readSpecial(r, v.kind, path)
    case "message": {
      const end = r.uint32() + r.pos
      const out: Record<string, unknown> = {}
      readFields(r, v.message, end, out, path)
      return out
    }
  }
}

const readMapEntry = (r: protobuf.Reader, f: FieldPlan, path: string, into: Record<string, unknown>): void => {
  const end = r.uint32() + r.pos
  let key = ""
  let value: unknown
  while (r.pos < end) {
    const tag = r.uint32()
    if (tag >>> 3 === 1) key = r.string()
    else if (tag >>> 3 === 2) value = readValue(r, f.value, join(path, key))
    else r.skipType(tag & 7)
  }
  if (value === undefined) value = f.value._tag === "scalar" ? (f.value.type === "string" || f.value.type === "bytes" ? "" : 0) : f.value._tag === "message" ? {} : ""
  into[key] = value
}

const readFields = (r: protobuf.Reader, plan: MessagePlan, end: number, out: Record<string, unknown>, path: string): void => {
  while (r.pos < end) {
    const tag = r.uint32()
    const field = plan.byId.get(tag >>> 3)
    if (field === undefined) throw new ProtobufDecodeError(path || ".", `unknown field number ${tag >>> 3} in ${plan.goName}`)
    const wireType = tag & 7
    const fieldPath = join(path, field.json)
    if (field.inline) {
      if (wireType !== 2 || field.value._tag !== "message") throw wrongWireType(fieldPath, wireType, plan)
      const innerEnd = r.uint32() + r.pos
      readFields(r, field.value.message, innerEnd, out, path)
      continue
    }
    if (field.map) {
      if (wireType !== 2) throw wrongWireType(fieldPath, wireType, plan)
      const into = (out[field.json] ??= {}) as Record<string, unknown>
      readMapEntry(r, field, fieldPath, into)
      continue
    }
    if (field.repeated) {
      const list = (out[field.json] ??= []) as unknown[]
      if (wireType === 2 && field.value._tag === "scalar" && field.value.type !== "string" && field.value.type !== "bytes") {
        // packed scalars
        const packedEnd = r.uint32() + r.pos
        while (r.pos < packedEnd) list.push(readScalar(r, field.value.type))
      } else list.push(readValue(r, field.value, `${fieldPath}[${list.length}]`))
      continue
    }
    if (wireType !== (field.tag & 7)) throw wrongWireType(fieldPath, wireType, plan)
    const value = readValue(r, field.value, fieldPath)
    if (field.value._tag === "scalar" && !field.keepZero && isZero(value)) {
      delete out[field.json]
      continue
    }
    out[field.json] = value
  }
  if (r.pos !== end) throw new ProtobufDecodeError(path || ".", `truncated ${plan.goName}`)
}

/** The JSON object of a message's bytes. */
export const decodeMessage = (plan: MessagePlan, bytes: Uint8Array, into: Record<string, unknown> = {}): Record<string, unknown> => {
  const r = protobuf.Reader.create(bytes)
  try {
    readFields(r, plan, bytes.length, into, "")
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw e
    // protobufjs's reader throws RangeError on reads past the end.
    throw new ProtobufDecodeError(".", `malformed ${plan.goName}: ${(e as Error).message}`)
  }
  return into
}
