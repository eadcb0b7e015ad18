/**
 * The protobuf envelope (spec 000 "Protobuf envelope"; `kubernetes/apimachinery`:
 * `pkg/runtime/serializer/protobuf/protobuf.go`, `pkg/runtime/generated.proto`): the magic `6b 38 73 00`, then a
 * `runtime.Unknown` {typeMeta {apiVersion, kind}, raw = the object's message, contentEncoding, contentType}.
 *
 * Watch streams (`;stream=watch`) are frames of a 4-byte big-endian length and a bare `meta.v1.WatchEvent`
 * {type, object: RawExtension {raw = the object's full envelope}} (`pkg/util/framer/framer.go`,
 * `pkg/runtime/serializer/streaming/streaming.go`).
 */
import protobuf from "protobufjs"
import { Either } from "effect"
import type { KObject, WatchEvent, WatchEventType } from "../Object.js"
import { decodeMessage, encodeMessage, ProtobufDecodeError, ProtobufEncodeError, type ItemCache } from "./Codec.js"
import { messagePlan, type MessagePlan } from "./Schema.js"

export const magic: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00)
/** The magic as the little-endian fixed32 the writer puts down without a length prefix. */
const magicLittleEndian = 0x0073386b

/** The text upstream answers a body without the magic with. */
export const missingMagicMessage = "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"

/** Upstream's package of a served group: `coordination.platform` and `coordination.k8s.io` are one API. */
export const packageOf = (group: string, version: string): string | undefined => {
  const base = group.replace(/\.(platform|k8s\.io)$/, "")
  switch (base) {
    case "":
      return `k8s.io.api.core.${version}`
    case "apps":
    case "coordination":
    case "events":
    case "policy":
    case "authorization":
    case "authentication":
    case "autoscaling":
      return `k8s.io.api.${base}.${version}`
    case "rbac.authorization":
      return `k8s.io.api.rbac.${version}`
    case "meta":
      return `k8s.io.apimachinery.pkg.apis.meta.${version}`
    default:
      return undefined
  }
}

const metaV1 = "k8s.io.apimachinery.pkg.apis.meta.v1"
const planByTypeMeta = new Map<string, MessagePlan | null>()

/**
 * The message of an `apiVersion` and `kind` (`v1`/`Pod`, `coordination.k8s.io/v1`/`LeaseList`, `v1`/`Status`);
 * `undefined` for a kind without a protobuf form here.
 */
export const planOfKind = (apiVersion: string, kind: string): MessagePlan | undefined => {
  const key = `${apiVersion}/${kind}`
  const cached = planByTypeMeta.get(key)
  if (cached !== undefined) return cached ?? undefined
  const slash = apiVersion.lastIndexOf("/")
  const group = slash >= 0 ? apiVersion.slice(0, slash) : ""
  const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion
  const pkg = packageOf(group, version)
  // Status, DeleteOptions and WatchEvent are meta types every group version serves as its own.
  const plan = kind === "" || pkg === undefined ? undefined : (messagePlan(`${pkg}.${kind}`) ?? (version === "v1" ? messagePlan(`${metaV1}.${kind}`) : undefined))
  planByTypeMeta.set(key, plan ?? null)
  return plan
}

export class NotProtobufEncodable extends Error {
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
    readonly reason?: ProtobufEncodeError
  ) {
    super(
      reason
        ? `object ${apiVersion}/${kind} cannot be encoded to a protobuf message without loss: ${reason.message}`
        : `object ${apiVersion}/${kind} does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message`
    )
  }
}

const writeEnvelope = (
  w: protobuf.Writer,
  apiVersion: string,
  kind: string,
  plan: MessagePlan,
  obj: Readonly<Record<string, unknown>>,
  cache: ItemCache | undefined
): void => {
  w.fixed32(magicLittleEndian)
  // typeMeta = 1 {apiVersion = 1, kind = 2}; raw = 2; contentEncoding = 3 and contentType = 4 written empty,
  // as upstream writes them.
  w.uint32(10).fork().uint32(10).string(apiVersion).uint32(18).string(kind).ldelim()
  w.uint32(18).fork()
  encodeMessage(plan, obj, w, cache)
  w.ldelim()
  w.uint32(26).string("").uint32(34).string("")
}

/**
 * The envelope of one object, list or Status, typed by its own `apiVersion` and `kind`. `cache` keeps the bytes
 * of the objects inside (list items) for the next encoding: only for objects that are never mutated.
 */
export const encodeObject = (obj: Readonly<Record<string, unknown>>, cache?: ItemCache): Either.Either<Uint8Array, NotProtobufEncodable> => {
  const apiVersion = typeof obj.apiVersion === "string" ? obj.apiVersion : ""
  const kind = typeof obj.kind === "string" ? obj.kind : ""
  const plan = planOfKind(apiVersion, kind)
  if (!plan) return Either.left(new NotProtobufEncodable(apiVersion, kind))
  const w = protobuf.Writer.create()
  try {
    writeEnvelope(w, apiVersion, kind, plan, obj, cache)
  } catch (e) {
    if (e instanceof ProtobufEncodeError) return Either.left(new NotProtobufEncodable(apiVersion, kind, e))
    throw e
  }
  return Either.right(w.finish())
}

export interface DecodedObject {
  readonly object: KObject
  readonly apiVersion: string
  readonly kind: string
}

export const hasMagic = (bytes: Uint8Array): boolean =>
  bytes.length >= 4 && bytes[0] === magic[0] && bytes[1] === magic[1] && bytes[2] === magic[2] && bytes[3] === magic[3]

interface Unknown {
  apiVersion: string
  kind: string
  raw: Uint8Array
  contentEncoding: string
  contentType: string
}

const readUnknown = (bytes: Uint8Array): Unknown => {
  const r = protobuf.Reader.create(bytes)
  r.pos = 4
  const out: Unknown = { apiVersion: "", kind: "", raw: new Uint8Array(0), contentEncoding: "", contentType: "" }
  while (r.pos < r.len) {
    const tag = r.uint32()
    switch (tag) {
      case 10: {
        const end = r.uint32() + r.pos
        while (r.pos < end) {
          const t = r.uint32()
          if (t === 10) out.apiVersion = r.string()
          else if (t === 18) out.kind = r.string()
          else r.skipType(t & 7)
        }
        break
      }
      case 18:
        out.raw = r.bytes()
        break
      case 26:
        out.contentEncoding = r.string()
        break
      case 34:
        out.contentType = r.string()
        break
      default:
        r.skipType(tag & 7)
    }
  }
  return out
}

/**
 * An object from its envelope. `defaults` fill an empty typeMeta (the request URL's type, as upstream defaults
 * it); the object comes back with `kind` and `apiVersion` first, as its JSON has them.
 */
export const decodeObject = (
  bytes: Uint8Array,
  defaults?: { readonly apiVersion: string; readonly kind: string }
): Either.Either<DecodedObject, ProtobufDecodeError> => {
  if (!hasMagic(bytes)) return Either.left(new ProtobufDecodeError("", missingMagicMessage))
  let unknown: Unknown
  try {
    unknown = readUnknown(bytes)
  } catch (e) {
    return Either.left(new ProtobufDecodeError("", `malformed runtime.Unknown: ${(e as Error).message}`))
  }
  const apiVersion = unknown.apiVersion || defaults?.apiVersion || ""
  const kind = unknown.kind || defaults?.kind || ""
  if (unknown.contentEncoding !== "") return Either.left(new ProtobufDecodeError("", `unsupported content encoding "${unknown.contentEncoding}"`))
  const head: Record<string, unknown> = {}
  if (kind) head.kind = kind
  if (apiVersion) head.apiVersion = apiVersion
  if (unknown.contentType === "application/json") {
    try {
      const value = JSON.parse(Buffer.from(unknown.raw).toString("utf8")) as Record<string, unknown>
      return Either.right({ object: { ...head, ...value } as KObject, apiVersion, kind })
    } catch (e) {
      return Either.left(new ProtobufDecodeError("", `raw JSON: ${(e as Error).message}`))
    }
  }
  if (unknown.contentType !== "" && !/^application\/vnd\.(platform|kubernetes)\.protobuf$/.test(unknown.contentType))
    return Either.left(new ProtobufDecodeError("", `unsupported content type "${unknown.contentType}"`))
  const plan = planOfKind(apiVersion, kind)
  if (!plan) return Either.left(new ProtobufDecodeError("", `no kind "${kind}" is registered for version "${apiVersion}"`))
  try {
    const object = decodeMessage(plan, unknown.raw, head)
    // A list's items are `json:"items"` without omitempty: an empty list still has them.
    if (object.items === undefined && plan.byJson.get("items")?.repeated) object.items = []
    return Either.right({ object: object as unknown as KObject, apiVersion, kind })
  } catch (e) {
    if (e instanceof ProtobufDecodeError) return Either.left(e)
    throw e
  }
}

// --- watch frames -------------------------------------------------------------------------------------------

/**
 * One watch frame: length, then `WatchEvent {type = 1, object = 2 {raw = 1: the object's envelope}}`. An
 * object without a protobuf form fails as {@link encodeObject} does.
 */
export const encodeWatchFrame = (event: WatchEvent): Either.Either<Uint8Array, NotProtobufEncodable> =>
  Either.map(encodeObject(event.object as Readonly<Record<string, unknown>>), (envelope) => {
    const w = protobuf.Writer.create()
    w.uint32(10).string(event.type).uint32(18).fork().uint32(10).bytes(envelope).ldelim()
    const message = w.finish()
    const frame = new Uint8Array(4 + message.length)
    new DataView(frame.buffer).setUint32(0, message.length)
    frame.set(message, 4)
    return frame
  })

const readWatchEvent = (message: Uint8Array): WatchEvent => {
  const r = protobuf.Reader.create(message)
  let type = ""
  let raw: Uint8Array | undefined
  while (r.pos < r.len) {
    const tag = r.uint32()
    if (tag === 10) type = r.string()
    else if (tag === 18) {
      const end = r.uint32() + r.pos
      while (r.pos < end) {
        const t = r.uint32()
        if (t === 10) raw = r.bytes()
        else r.skipType(t & 7)
      }
    } else r.skipType(tag & 7)
  }
  if (!raw) throw new ProtobufDecodeError("object", "watch event without an object")
  const decoded = decodeObject(raw)
  if (Either.isLeft(decoded)) throw decoded.left
  return { type: type as WatchEventType, object: decoded.right.object }
}

/**
 * Splits a protobuf watch stream into events as its chunks arrive: feed each chunk, get the events it
 * completes. Throws {@link ProtobufDecodeError} on a malformed frame.
 */
export const watchFrameDecoder = (): ((chunk: Uint8Array) => ReadonlyArray<WatchEvent>) => {
  let pending: Buffer = Buffer.alloc(0)
  return (chunk) => {
    pending = pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([pending, chunk])
    const events: WatchEvent[] = []
    while (pending.length >= 4) {
      const length = pending.readUInt32BE(0)
      if (pending.length < 4 + length) break
      events.push(readWatchEvent(pending.subarray(4, 4 + length)))
      pending = pending.subarray(4 + length)
    }
    return events
  }
}
