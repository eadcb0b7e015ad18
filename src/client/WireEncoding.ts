/**
 * The client's side of encoding by media type: what a request asks for and sends, and how an answer is read
 * by the Content-Type it came with. `json` is the default; `protobuf` asks for the envelope with a JSON fallback
 * (`Accept: application/vnd.kubernetes.protobuf, application/json`, as client-go's protobuf clients do) and
 * sends bodies as protobuf when they have a lossless protobuf form, else as JSON.
 */
import { Either } from "effect"
import { kubernetesProtobufMediaType } from "../api/MediaType.js"
import type { KObject } from "../api/Object.js"
import { decodeObject, encodeObject } from "../api/protobuf/Envelope.js"
import { apiVersionOf, type ResourceType } from "../api/Resources.js"
import { inOneStep, type SteppedDecode } from "./DecodeTurns.js"
import { ListInSlices } from "./ListInSlices.js"

export type WireEncoding = "json" | "protobuf"

export const acceptHeader = (encoding: WireEncoding): string =>
  encoding === "json" ? "application/json" : `${kubernetesProtobufMediaType}, application/json`

export interface RequestBody {
  readonly contentType: string
  readonly payload: string | Uint8Array
}

/** An object body: protobuf (typed from the object, else from the resource) when it encodes without loss. */
export const objectBody = (encoding: WireEncoding, resource: ResourceType, obj: unknown): RequestBody => {
  if (encoding === "protobuf" && typeof obj === "object" && obj !== null) {
    const typed = obj as Record<string, unknown>
    const withType = typed.kind !== undefined && typed.apiVersion !== undefined ? typed : { kind: resource.kind, apiVersion: apiVersionOf(resource), ...typed }
    const encoded = encodeObject(withType)
    if (Either.isRight(encoded)) return { contentType: kubernetesProtobufMediaType, payload: encoded.right }
  }
  return { contentType: "application/json", payload: typeof obj === "string" ? obj : JSON.stringify(obj) }
}

const isProtobuf = (contentType: string | undefined): boolean => contentType !== undefined && /^application\/vnd\.(kubernetes|platform)\.protobuf/.test(contentType)

/** An answer's value by its Content-Type; undecodable bytes throw, as malformed JSON does. */
export const decodeAnswer = (contentType: string | undefined, bytes: Buffer): unknown => {
  if (!isProtobuf(contentType)) return JSON.parse(bytes.toString("utf8")) as unknown
  const decoded = decodeObject(bytes)
  if (Either.isLeft(decoded)) throw decoded.left
  return decoded.right.object as KObject
}

/** `decodeAnswer` in bounded steps: a JSON list's items a slice of `sliceBytes` per step, protobuf in one step. */
export const decodeAnswerInSteps = (contentType: string | undefined, bytes: Buffer, sliceBytes: number): SteppedDecode<unknown> =>
  isProtobuf(contentType) ? inOneStep(() => decodeAnswer(contentType, bytes)) : new ListInSlices(bytes, sliceBytes)

/** A watch body in protobuf frames (else one JSON event per line). */
export const isProtobufStream = isProtobuf
