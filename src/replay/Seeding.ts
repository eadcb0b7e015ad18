/**
 * The world a log assumes: objects it shows to exist before it creates them (read, updated, patched or deleted
 * with success, or a create refused with 409 AlreadyExists) and the namespaces its requests use. Built from the
 * log's first pass, then created on the target before the replay: from the recorded `responseObject` when the
 * level kept it, else synthesized (BodySynthesis.ts). Without it a Metadata-level log replays as a stream of 404s.
 */
import type { Event } from "../api/audit/Event.js"
import { synthesizeObject, withoutServerFields } from "./BodySynthesis.js"
import type { OutgoingRequest } from "./ReplayPlan.js"
import { rewriteBody } from "./ReplayPlan.js"
import type { RecordedRequest } from "./RequestSelection.js"
import { collectionUri, parseRequestUri, UnparsableUri } from "./RequestUri.js"

export interface SeedObject {
  /** Where it is created (`POST`). */
  readonly collectionUri: string
  readonly body: Record<string, unknown>
  readonly synthesized: boolean
  /** `pods/ns/name`, for the report's examples. */
  readonly key: string
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const ok = (code: number | undefined): boolean => code === undefined || (code >= 200 && code < 300)
const touches = new Set(["get", "update", "patch", "delete"])

export class SeedPlan {
  /** Namespaces to create, in first-use order. */
  readonly namespaces: Array<string> = []
  readonly objects: Array<SeedObject> = []
  private readonly known = new Map<string, "created" | "seeded" | "absent">()
  /**
   * Seeds synthesized for want of a recorded object (their index in `objects`), until the log shows the object: a
   * Metadata-level read before a RequestResponse one (two audit policies' rules, a level raised mid-log) seeds from the
   * recorded one. Forgotten once the log deletes or creates the object (what it shows then is another).
   */
  private readonly synthesizedAt = new Map<string, number>()
  /**
   * What the log creates and leaves (`namespaces/<name>`, `<resource>/<namespace>/<name>`), in creation order: a
   * `--loop` round after the first creates it again and gets 409 where the log had 201 (docs/replay.md "Scaling").
   */
  readonly leftBehind = new Set<string>()
  private readonly namespaceSeen = new Set<string>()

  private useNamespace(ns: string): void {
    if (this.namespaceSeen.has(ns)) return
    this.namespaceSeen.add(ns)
    this.namespaces.push(ns)
  }

  /** One replayed request (one scale copy of it), in replay order. */
  observe(r: RecordedRequest, out: OutgoingRequest): void {
    const e = r.event
    const p = out.path
    if (p.prefix === undefined || p.resource === undefined) return
    const named = p.name ?? (e.verb === "create" ? (nameOfBody(out.body) ?? e.objectRef?.name) : undefined)
    if (named !== undefined && named !== "" && p.subresource === undefined && ok(r.recordedCode)) {
      const left = p.resource === "namespaces" ? `namespaces/${named}` : `${p.resource}/${p.namespace ? `${p.namespace}/` : ""}${named}`
      if (e.verb === "create") this.leftBehind.add(left)
      else if (e.verb === "delete") this.leftBehind.delete(left)
    }
    if (p.resource === "namespaces") {
      const name = named
      if (name === undefined || this.namespaceSeen.has(name)) return
      // a namespace the log creates first is the log's own (so is one it failed to create); any other use, or a
      // create refused with 409, assumes it exists
      if (e.verb === "create" && p.subresource === undefined && r.recordedCode !== 409) this.namespaceSeen.add(name)
      else this.useNamespace(name)
      return
    }
    if (p.namespace !== undefined) this.useNamespace(p.namespace)
    const name = named
    if (name === undefined || name === "") return
    const key = `${p.group ? `${p.group}/` : ""}${p.resource}/${p.namespace ?? ""}/${name}`
    if (this.known.has(key)) return this.laterSighting(key, r, out)
    const existed = (e.verb === "create" && r.recordedCode === 409 && p.subresource === undefined) || (touches.has(e.verb) && ok(r.recordedCode))
    if (e.verb === "create" && p.subresource === undefined && !existed) return void this.known.set(key, ok(r.recordedCode) ? "created" : "absent")
    if (!existed) return void this.known.set(key, "absent")
    this.known.set(key, "seeded")
    const body = recordedBody(e, p)
    if (body === undefined) this.synthesizedAt.set(key, this.objects.length)
    this.objects.push({
      collectionUri: collectionUri(p, p.namespace),
      body: body ?? synthesizeObject(e.objectRef ?? { resource: p.resource }, p.group, p.version, name, p.namespace),
      synthesized: body === undefined,
      key: `${p.resource}/${p.namespace ? `${p.namespace}/` : ""}${name}`
    })
  }

  /** A later request on an object already decided: the recorded object for a synthesized seed, if it has one. */
  private laterSighting(key: string, r: RecordedRequest, out: OutgoingRequest): void {
    const at = this.synthesizedAt.get(key)
    if (at === undefined) return
    const e = r.event
    const p = out.path
    if (p.subresource === undefined && (e.verb === "create" || (e.verb === "delete" && ok(r.recordedCode)))) return void this.synthesizedAt.delete(key)
    if (!touches.has(e.verb) || !ok(r.recordedCode)) return
    const body = recordedBody(e, p)
    if (body === undefined) return
    this.objects[at] = { ...this.objects[at]!, body, synthesized: false }
    this.synthesizedAt.delete(key)
  }
}

/** The object as the log recorded it (a read's or write's answer, or an update's body), renamed as `p` renames it. */
const recordedBody = (e: Event, p: OutgoingRequest["path"]): Record<string, unknown> | undefined => {
  const recorded = seedBodyOf(e.responseObject, e.verb) ?? (e.verb === "update" && p.subresource === undefined ? seedBodyOf(e.requestObject, e.verb) : undefined)
  const parsed = parseRequestUri(e.requestURI)
  return recorded && !(parsed instanceof UnparsableUri) ? withoutServerFields(rewriteBody(recorded, parsed, p) as Record<string, unknown>) : undefined
}

/**
 * The event as the first pass keeps it until it is observed (SelectedSource's `retain`): its `responseObject` only when
 * it is an object seeding could start from — not a list's answer, which can hold thousands of objects, nor a Status.
 */
export const seedingView = (e: Event): Event => {
  if (e.responseObject === undefined || seedBodyOf(e.responseObject, e.verb) !== undefined) return e
  const { responseObject: _dropped, ...rest } = e
  return rest
}

const nameOfBody = (body: string | undefined): string | undefined => {
  if (body === undefined) return undefined
  try {
    const o = JSON.parse(body) as { metadata?: { name?: unknown } }
    return typeof o.metadata?.name === "string" ? o.metadata.name : undefined
  } catch {
    return undefined
  }
}

/** A recorded object worth seeding from: an object of its kind, not a `Status` nor a list. */
const seedBodyOf = (v: unknown, _verb: string): Record<string, unknown> | undefined =>
  isRecord(v) && v.kind !== "Status" && !Array.isArray(v.items) && isRecord(v.metadata) ? v : undefined
