/**
 * Encoding by media type: the bytes and Content-Type of an answer, a watch event or a request body in the
 * representation `MediaType.negotiate` chose (JSON, or the protobuf envelope of `src/api/protobuf/`). A new
 * representation is added here and in the negotiation, nowhere else.
 */
import { Either } from "effect"
import { maxBodyNestingDepth, valueDepthExceeds } from "../../../src/api/JsonDepth.js"
import { isTable, protobufResponseMediaType, type Representation } from "../../../src/api/MediaType.js"
import type { KList, KObject, WatchEvent } from "../../../src/api/Object.js"
import { decodeObject, encodeObject, encodeWatchFrame, type NotProtobufEncodable } from "../../../src/api/protobuf/Envelope.js"
import { apiVersionOf, type ResourceType } from "../../../src/api/Resources.js"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import { listTable, objectTable, parseIncludeObject, type TableOptions } from "../../../src/api/table/Table.js"
import { unrecognizedObject } from "../../../src/api/UnrecognizedObject.js"
import { tooDeep } from "../Decode.js"

export interface Encoded {
  readonly contentType: string
  readonly bytes: Buffer
}

/** Stored objects are immutable, so the bytes of a hot object are made once per representation (weakly held). */
const jsonBytes = new WeakMap<object, Buffer>()
const protobufBytes = new WeakMap<object, Buffer>()

const compactJson = (body: object, cache: boolean): Buffer => {
  let bytes = cache ? jsonBytes.get(body) : undefined
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(body) + "\n")
    if (cache) jsonBytes.set(body, bytes)
  }
  return bytes
}

/** JSON as upstream writes it: pretty (2 spaces, no trailing newline) or compact with a trailing newline. */
export const encodeJson = (body: unknown, pretty: boolean, cache = false): Buffer =>
  pretty ? Buffer.from(JSON.stringify(body, null, 2)) : typeof body === "object" && body !== null ? compactJson(body, cache) : Buffer.from(JSON.stringify(body) + "\n")

/** The message bytes of stored objects inside lists and watch events (stored versions are never mutated). */
const storedItemBytes = new WeakMap<object, Uint8Array>()

const protobufEnvelope = (body: object, cache: boolean): Either.Either<Buffer, NotProtobufEncodable> => {
  const cached = cache ? protobufBytes.get(body) : undefined
  if (cached !== undefined) return Either.right(cached)
  return Either.map(encodeObject(body as Readonly<Record<string, unknown>>, storedItemBytes), (envelope) => {
    const bytes = Buffer.from(envelope.buffer, envelope.byteOffset, envelope.byteLength)
    if (cache) protobufBytes.set(body, bytes)
    return bytes
  })
}

export interface EncodeOptions {
  readonly pretty: boolean
  /** The request's Accept header: the protobuf answer carries the name asked for. */
  readonly accept: string | undefined
  /** The body is a stored object (immutable): its bytes may be cached. */
  readonly stored?: boolean
}

/**
 * An answer's bytes in the negotiated representation. An object without a lossless protobuf form (a field
 * the protobuf schema does not know) fails, and the caller falls back as `docs/protobuf.md` describes.
 */
export const encodeBody = (representation: Representation, body: object, opts: EncodeOptions): Either.Either<Encoded, NotProtobufEncodable> => {
  if (representation === "json" || isTable(representation))
    return Either.right({ contentType: "application/json", bytes: encodeJson(body, opts.pretty, opts.stored) })
  return Either.map(protobufEnvelope(body, opts.stored ?? false), (bytes) => ({ contentType: protobufResponseMediaType(opts.accept), bytes }))
}

/** The Content-Type of a watch stream: JSON has none of its own (`handlers/watch.go`), protobuf names the framing. */
export const watchContentType = (representation: Representation, accept: string | undefined): string =>
  representation === "json" || isTable(representation) ? "application/json" : `${protobufResponseMediaType(accept)};stream=watch`

/** Events are shared between watchers, so each is serialized once per representation. */
const eventJson = new WeakMap<WatchEvent, Buffer>()
const eventFrames = new WeakMap<WatchEvent, Buffer>()

/** One watch event as the stream carries it: a JSON line, or a length-prefixed protobuf frame. */
export const encodeWatchEvent = (representation: Representation, event: WatchEvent): Either.Either<Buffer, NotProtobufEncodable> => {
  if (representation === "json" || isTable(representation)) {
    let line = eventJson.get(event)
    if (line === undefined) {
      line = Buffer.from(JSON.stringify(event) + "\n")
      eventJson.set(event, line)
    }
    return Either.right(line)
  }
  const cached = eventFrames.get(event)
  if (cached !== undefined) return Either.right(cached)
  return Either.map(encodeWatchFrame(event), (frame) => {
    const bytes = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength)
    eventFrames.set(event, bytes)
    return bytes
  })
}

/**
 * A protobuf request body as the JSON value the server works on (protobuf bodies are never strict-checked,
 * its serializer has no strict mode, so there is no text to look for duplicate fields in). Errors are upstream's 400s
 * (`transformDecodeError`).
 */
export const decodeProtobufBody = (bytes: Buffer, resource: ResourceType, apiVersion = apiVersionOf(resource)): Either.Either<KObject, ApiError> => {
  const decoded = decodeObject(bytes, { apiVersion, kind: resource.kind })
  // An envelope may carry raw JSON, which no schema bounds.
  if (Either.isRight(decoded))
    return valueDepthExceeds(decoded.right.object, maxBodyNestingDepth) ? Either.left(tooDeep(resource)) : Either.right(decoded.right.object)
  const error = decoded.left
  if (error.path === "")
    return Either.left(Status.badRequest(unrecognizedObject(resource.kind, error.message, bytes)))
  const version = resource.version
  return Either.left(Status.badRequest(`${resource.kind} in version "${version}" cannot be handled as a ${resource.kind}: ${error.message}`))
}

/** A protobuf `DeleteOptions` body (`meta.v1`), as client-go's protobuf clients send it with a delete. */
export const decodeDeleteOptions = (bytes: Buffer): Either.Either<KObject, ApiError> => {
  const decoded = decodeObject(bytes, { apiVersion: "v1", kind: "DeleteOptions" })
  return Either.isRight(decoded)
    ? Either.right(decoded.right.object)
    : Either.left(Status.badRequest(unrecognizedObject("DeleteOptions", decoded.left.message, bytes)))
}

// --- Table (src/api/table/) ----------------------------------------------------------------------------

/** What a Table answer needs beyond the negotiated apiVersion: the kind's printer, the row objects, the time. */
export interface TableRequest {
  readonly kind: string
  readonly options: Omit<TableOptions, "columns">
}

/** The Table request of a negotiated Table representation; a bad `includeObject` is upstream's 400. */
export const tableRequest = (
  representation: Representation,
  resource: ResourceType,
  includeObject: string | null,
  now: number,
  view: ((obj: KObject) => KObject) | undefined
): Either.Either<TableRequest | undefined, ApiError> => {
  if (!isTable(representation)) return Either.right(undefined)
  // Row objects are whole objects in the client's API (list items are stored without kind/apiVersion).
  const typed = (obj: KObject): KObject => (obj.kind === undefined ? { kind: resource.kind, apiVersion: apiVersionOf(resource), ...obj } : obj)
  const toWire = view ? (obj: KObject) => view(typed(obj)) : typed
  return Either.map(parseIncludeObject(includeObject), (include) => ({
    kind: resource.kind,
    options: { apiVersion: representation.apiVersion, includeObject: include, now, toWire }
  }))
}

/** An answer as a Table: lists and objects converted, a `Status` as it is. */
export const tableBody = (request: TableRequest, body: object): object => {
  const b = body as KObject
  if (b.kind === "Status") return body
  const options = { ...request.options, columns: true }
  return Array.isArray((body as KList).items) ? listTable(request.kind, body as KList, options) : objectTable(request.kind, b, options)
}

/** A watch event as a Table event: column definitions on the first only; errors as they are. */
export const tableWatchEvent = (request: TableRequest, event: WatchEvent, first: boolean): WatchEvent => {
  if (event.type === "ERROR") return event
  const options = { ...request.options, columns: first }
  if (event.type === "BOOKMARK") {
    const bookmark = { ...objectTable(request.kind, event.object, options), rows: [] }
    return { type: event.type, object: bookmark as unknown as KObject }
  }
  return { type: event.type, object: objectTable(request.kind, event.object, options) as unknown as KObject }
}
