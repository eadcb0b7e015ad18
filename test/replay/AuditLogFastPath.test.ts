/**
 * The read path's shortcuts give what the general path gives (src/replay/AuditLine.ts `wellFormedEvent`,
 * src/api/audit/EventTime.ts `microTimeMs`, src/replay/AuditLogFile.ts `AuditLogLines`): the hand-checked event is
 * the Schema's decoding of it, key for key and in order; the time of the log's own form is the regular expression's
 * to the bit; lines are readline's, whatever the chunk boundaries.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { createInterface } from "node:readline"
import { createReadStream } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Event } from "../../src/api/audit/Event.js"
import { microTimeMs } from "../../src/api/audit/EventTime.js"
import { parseGoTime } from "../../src/api/go/Time.js"
import { decodeAuditLine, wellFormedEvent, withoutResponseObject } from "../../src/replay/AuditLine.js"
import { auditLogLines } from "../../src/replay/AuditLogFile.js"
import { auditEvent } from "./auditEvents.js"

const schemaDecode = Schema.decodeUnknownSync(Event, { onExcessProperty: "ignore" })
const dir = mkdtempSync(join(tmpdir(), "replay-fast-"))

describe("wellFormedEvent", () => {
  const base = auditEvent({ at: 0, verb: "update", uri: "/api/v1/namespaces/a/configmaps/x", ref: { resource: "configmaps", namespace: "a", name: "x", apiVersion: "v1" }, requestObject: { kind: "ConfigMap", data: { a: "1" } }, responseObject: { kind: "ConfigMap" } })
  const variants: ReadonlyArray<[string, Record<string, unknown>]> = [
    ["as serve writes it", base],
    ["fields a newer server adds, at every level", { ...base, newField: 1, user: { ...(base.user as object), newer: true, extra: { scopes: ["a", "b"] } }, objectRef: { ...(base.objectRef as object), other: "x" } }],
    ["impersonated, annotations, a Status answer", { ...base, impersonatedUser: { username: "bob", groups: ["g"] }, annotations: { "authorization.k8s.io/decision": "allow" }, responseStatus: { metadata: {}, status: "Failure", message: "m", reason: "NotFound", details: { name: "x", kind: "configmaps" }, code: 404 } }],
    ["the fewest fields", { kind: "Event", apiVersion: "audit.k8s.io/v1", level: "Metadata", auditID: "1", stage: "RequestReceived", requestURI: "/healthz", verb: "get", user: {}, requestReceivedTimestamp: "2026-01-01T10:00:00Z", stageTimestamp: "2026-01-01T10:00:00+02:00" }],
    ["null bodies", { ...base, requestObject: null, responseObject: null }]
  ]
  for (const [name, event] of variants)
    it(`decodes ${name} as the Schema does, key order included`, () => {
      const fast = wellFormedEvent(event)
      expect(fast).toBeDefined()
      expect(fast).toStrictEqual(schemaDecode(event))
      expect(JSON.stringify(fast)).toBe(JSON.stringify(schemaDecode(event)))
    })

  it("leaves to the Schema every event it does not take as it is, which then names the field", () => {
    const bad: ReadonlyArray<[Record<string, unknown>, RegExp]> = [
      [{ ...base, stage: "Finished" }, /^stage: Expected "RequestReceived" \| "ResponseStarted" \| "ResponseComplete" \| "Panic", actual "Finished"/],
      [{ ...base, user: { username: 7 } }, /^user\.username: Expected string \| undefined, actual 7/],
      [{ ...base, user: { groups: ["a", 1] } }, /^user\.groups\.1: Expected string, actual 1/],
      [{ ...base, objectRef: { name: null } }, /^objectRef\.name: Expected string \| undefined, actual null/],
      [{ ...base, responseStatus: { code: "200" } }, /^responseStatus\.code: Expected number \| undefined, actual "200"/],
      [{ ...base, annotations: { a: 1 } }, /^annotations\.a: Expected string, actual 1/],
      [{ ...base, stageTimestamp: "2026-01-01 10:00:00" }, /^stageTimestamp: not an RFC 3339 time/],
      [{ ...base, sourceIPs: "10.0.0.1" }, /^sourceIPs: Expected ReadonlyArray<string> \| undefined, actual "10.0.0.1"/]
    ]
    for (const [event, message] of bad) {
      expect(wellFormedEvent(event)).toBeUndefined()
      const d = decodeAuditLine(JSON.stringify(event), { file: "f", line: 3 })
      expect(d.events).toEqual([])
      expect(d.bad.map((b) => b.class)).toEqual(["invalid-event"])
      expect(d.bad[0]!.message).toMatch(message)
    }
  })
})

describe("microTimeMs", () => {
  /** The general path: the regular expression and Go's time.Parse (no hour 24, no 30 February, as upstream). */
  const general = (t: string): number => {
    const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(t)
    const whole = m ? parseGoTime(`${m[1]}${m[3]}`, "RFC3339") : undefined
    return m && whole !== undefined && !("error" in whole) ? whole.seconds * 1000 + (m[2] === undefined ? 0 : Number(`0.${m[2]}`) * 1000) : Number.NaN
  }

  it("reads the log backend's form as the general path does, to the bit, and refuses what it refuses", () => {
    const texts = [
      "2026-11-29T11:30:00.123456Z",
      "2026-11-29T11:30:00.1Z",
      "2026-11-29T23:59:59.999999999Z",
      "2024-02-29T00:00:00.000001Z",
      "2026-01-01T24:00:00.1Z",
      "2026-01-01T23:60:00.1Z",
      "2026-01-01T23:00:60.1Z",
      "2026-13-01T00:00:00.1Z",
      "2026-02-30T00:00:00.1Z",
      "2026-01-01T10:00:00.Z",
      "2026-01-01T10:00:00.1234567890Z",
      "2026-01-01T1a:00:00.1Z",
      "2026-01-01T10:00:00Z",
      "2026-01-01T12:00:00.5+02:00"
    ]
    for (let i = 0; i < 2000; i++) {
      const digits = 1 + (i % 9)
      const fraction = String((i * 7919) % 10 ** digits).padStart(digits, "0")
      texts.push(`${new Date(Date.UTC(2026, 0, 1) + i * 3_600_123).toISOString().slice(0, 19)}.${fraction}Z`)
    }
    for (const t of texts) expect(Object.is(microTimeMs(t), general(t)), t).toBe(true)
  })
})

describe("AuditLogLines", () => {
  const readlineLines = async (path: string) => {
    const out: Array<string> = []
    for await (const l of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) out.push(l)
    return out
  }
  const ours = async (path: string) => {
    const out: Array<string> = []
    for await (const l of auditLogLines(path)) out.push(`${l.line}:${l.text}`)
    return out
  }

  it("ends lines as readline does: \\n, \\r\\n, a lone \\r, a last line without a newline, lines longer than a read", async () => {
    const long = "é".repeat(300_000) // 600 kB of two-byte characters: lines and characters across reads
    const text = `a\r\nb\rc\n\n${long}\nd\r\r\ne\u2028f\n${long}x`
    const path = join(dir, "ends.log")
    writeFileSync(path, text)
    const expected = (await readlineLines(path)).map((l, i) => `${i + 1}:${l}`)
    expect(await ours(path)).toEqual(expected)
    expect(expected.length).toBe(9)
  })
})

describe("withoutResponseObject", () => {
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "a" }, data: { k: 'a "quoted" } { value' } }
  const line = (e: Record<string, unknown>) => JSON.stringify(e)
  const decoded = (text: string, skip: boolean) => decodeAuditLine(text, { file: "f", line: 1 }, skip)

  it("leaves a recorded answer unparsed, the rest of the event as it was", () => {
    const list = { kind: "ConfigMapList", apiVersion: "v1", metadata: {}, items: [cm, cm] }
    const e = auditEvent({ at: 0, verb: "list", uri: "/api/v1/namespaces/a/configmaps", responseObject: list })
    const text = line(e)
    expect(withoutResponseObject(text)).not.toContain("responseObject")
    const { responseObject: _r, ...rest } = decoded(text, false).events[0]!.event
    expect(decoded(text, true).events[0]!.event).toEqual(rest)
  })

  it("keeps a create's answer (the name generateName made), a line in another order, and an answer with no timestamp after it", () => {
    const create = line(auditEvent({ at: 0, verb: "create", uri: "/api/v1/namespaces/a/configmaps", requestObject: { metadata: { generateName: "g-" } }, responseObject: cm }))
    expect(withoutResponseObject(create)).toBe(create)
    const get = auditEvent({ at: 0, verb: "get", uri: "/api/v1/namespaces/a/configmaps/x", responseObject: cm })
    const { responseObject, ...rest } = get
    const reordered = line({ ...rest, responseObject })
    expect(withoutResponseObject(reordered)).toBe(reordered)
  })

  it("never cuts inside a request body that has fields of those names; a cut that is no JSON is parsed whole", () => {
    // a custom object recording an audit event as an object: its fields in the same order
    const body = { apiVersion: "x.io/v1", kind: "Record", metadata: { name: "r" }, spec: { verb: "get", responseObject: { a: 1 }, requestReceivedTimestamp: "t" } }
    const update = auditEvent({ at: 0, verb: "update", uri: "/apis/x.io/v1/records/r", requestObject: body, responseObject: body })
    const text = line(update)
    // the first `responseObject` key is the body's: the line is left whole
    expect(withoutResponseObject(text)).toBe(text)
    expect(decoded(text, true).events[0]!.event.requestObject).toEqual(body)
    // the same names inside the answer: the cut stops early, leaves no JSON, and the whole line is parsed
    const get = line(auditEvent({ at: 0, verb: "get", uri: "/apis/x.io/v1/records/r", responseObject: body }))
    expect(() => JSON.parse(withoutResponseObject(get))).toThrow()
    expect(decoded(get, true)).toEqual(decoded(get, false))
    // a line that is no JSON stays bad input
    expect(decoded(get.slice(0, 80), true).bad.map((b) => b.class)).toEqual(["not-json"])
  })
})
