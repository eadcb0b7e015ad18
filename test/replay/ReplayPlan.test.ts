/**
 * What a recorded request becomes (src/replay/ReplayPlan.ts, RequestUri.ts, Seeding.ts, BodySynthesis.ts): the
 * schedule's arithmetic for --speed, --scale and loops; filters; namespaces and names per copy; the query kept;
 * impersonation headers; the world seeded; synthesized bodies the served schemas accept.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Event } from "../../src/api/audit/Event.js"
import { apiVersionOf, resourceTypes } from "../../src/api/Resources.js"
import { synthesizeObject } from "../../src/replay/BodySynthesis.js"
import {
  copyShiftMs,
  identityHeaders,
  intendedOffsetMs,
  keptByFilter,
  type OutgoingRequest,
  outgoingRequest,
  patchContentType,
  portableQuery,
  replayNamespace,
  type ReplayShape,
  sendingView,
  withResourceVersion
} from "../../src/replay/ReplayPlan.js"
import type { RecordedRequest } from "../../src/replay/RequestSelection.js"
import { formatRequestUri, parseRequestUri, UnparsableUri } from "../../src/replay/RequestUri.js"
import { SeedPlan, seedingView } from "../../src/replay/Seeding.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { auditEvent, type EventSpec, t0 } from "./auditEvents.js"

const recorded = (s: EventSpec): RecordedRequest => {
  const event = auditEvent(s) as unknown as Event
  return { event, file: "f.log", line: 1, receivedMs: t0 + s.at, scheduleMs: t0 + s.at, late: false, recordedLatencyMs: 2, recordedCode: s.code ?? 200, longRunning: s.verb === "watch", holdMs: undefined }
}
const shape: ReplayShape = { speed: 1, scale: 1, impersonate: false }
const out = (r: RecordedRequest, copy = 0, s: ReplayShape = shape): OutgoingRequest => {
  const o = outgoingRequest(r, copy, s)
  if (o instanceof UnparsableUri) throw new Error(o.message)
  return o
}

describe("the schedule", () => {
  it("divides recorded offsets by the speed: 10 minutes at --speed 10 is 60 s", () => {
    expect(intendedOffsetMs({ recordedOffsetMs: 600_000, speed: 10, copy: 0, scale: 1, round: 0, spanMs: 600_000 })).toBe(60_000)
    expect(intendedOffsetMs({ recordedOffsetMs: 1500, speed: 0.5, copy: 0, scale: 1, round: 0, spanMs: 10_000 })).toBe(3000)
  })

  it("spreads K copies over one recorded second, and a loop round lasts the span plus a recorded second", () => {
    expect([0, 1, 2, 3].map((k) => copyShiftMs(k, 4, 1))).toEqual([0, 250, 500, 750])
    expect([0, 1].map((k) => copyShiftMs(k, 2, 10))).toEqual([0, 50])
    expect(intendedOffsetMs({ recordedOffsetMs: 0, speed: 2, copy: 0, scale: 1, round: 1, spanMs: 9000 })).toBe(5000)
    expect(intendedOffsetMs({ recordedOffsetMs: 3000, speed: 1, copy: 1, scale: 2, round: 2, spanMs: 4000 })).toBe(3000 + 500 + 10_000)
  })
})

describe("filters", () => {
  const r = recorded({ at: 5000, verb: "get", uri: "/api/v1/namespaces/a/configmaps/x", ref: { resource: "configmaps", namespace: "a", name: "x", apiVersion: "v1" }, user: "alice" })
  const status = recorded({ at: 0, verb: "update", uri: "/api/v1/namespaces/a/pods/p/status", ref: { resource: "pods", subresource: "status", namespace: "a", name: "p" } })
  it("keep by user, verb, resource (any name kubectl takes, or with its subresource), namespace and time window", () => {
    expect(keptByFilter({}, r, t0)).toBe(true)
    expect(keptByFilter({ users: ["alice"] }, r, t0)).toBe(true)
    expect(keptByFilter({ users: ["bob"] }, r, t0)).toBe(false)
    expect(keptByFilter({ verbs: ["get", "list"] }, r, t0)).toBe(true)
    expect(keptByFilter({ verbs: ["list"] }, r, t0)).toBe(false)
    for (const name of ["configmaps", "cm", "ConfigMap"]) expect(keptByFilter({ resources: [name] }, r, t0), name).toBe(true)
    expect(keptByFilter({ resources: ["pods"] }, r, t0)).toBe(false)
    expect(keptByFilter({ resources: ["pods/status"] }, status, t0)).toBe(true)
    expect(keptByFilter({ resources: ["pods"] }, status, t0)).toBe(true)
    expect(keptByFilter({ namespaces: ["a"] }, r, t0)).toBe(true)
    expect(keptByFilter({ namespaces: ["b"] }, r, t0)).toBe(false)
    expect(keptByFilter({ fromOffsetMs: 5000 }, r, t0)).toBe(true)
    expect(keptByFilter({ fromOffsetMs: 5001 }, r, t0)).toBe(false)
    expect(keptByFilter({ toOffsetMs: 5000 }, r, t0)).toBe(false)
    expect(keptByFilter({ fromMs: Date.parse("2026-01-01T10:00:05Z"), toMs: Date.parse("2026-01-01T10:00:06Z") }, r, t0)).toBe(true)
  })
})

describe("request URIs", () => {
  it("reads upstream's path layout and writes it back byte for byte, the query as recorded", () => {
    for (const uri of [
      "/api/v1/namespaces/default/pods/web-1/status?fieldManager=kubelet",
      "/apis/apps/v1/namespaces/default/deployments?labelSelector=app%3Dweb&limit=500",
      "/api/v1/namespaces/kube-system",
      "/api/v1/namespaces/team/finalize",
      "/api/v1/nodes/n1",
      "/version",
      "/apis/apps"
    ])
      expect(formatRequestUri(parseRequestUri(uri) as never), uri).toBe(uri)
    expect(parseRequestUri("/api/v1/namespaces/kube-system")).toMatchObject({ resource: "namespaces", name: "kube-system", namespace: "kube-system" })
    expect(parseRequestUri("/apis/apps/v1/namespaces/d/deployments/web/scale")).toMatchObject({ group: "apps", version: "v1", namespace: "d", resource: "deployments", name: "web", subresource: "scale" })
  })

  it("refuses what no server would route: a relative URI, whitespace, broken percent-encoding", () => {
    expect((parseRequestUri("api/v1/pods") as UnparsableUri).message).toBe('requestURI "api/v1/pods" is not an absolute path')
    expect(parseRequestUri("/api/v1/pods /x")).toBeInstanceOf(UnparsableUri)
    expect((parseRequestUri("/api/v1/namespaces/%zz/pods") as UnparsableUri).message).toBe('path segment "%zz" is not valid percent-encoding')
  })

  it("sends recorded resource versions as 0 and drops continue tokens unless told to keep them", () => {
    expect(portableQuery("watch=true&resourceVersion=4711&allowWatchBookmarks=true")).toBe("watch=true&resourceVersion=0&allowWatchBookmarks=true")
    expect(portableQuery("limit=500&continue=abc&resourceVersion=")).toBe("limit=500&resourceVersion=")
    const w = recorded({ at: 0, verb: "watch", uri: "/api/v1/namespaces/a/pods?watch=true&resourceVersion=9" })
    expect(out(w).uri).toBe("/api/v1/namespaces/a/pods?watch=true&resourceVersion=0")
    expect(out(w, 0, { ...shape, keepResourceVersions: true }).uri).toBe("/api/v1/namespaces/a/pods?watch=true&resourceVersion=9")
  })
})

describe("the request sent", () => {
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "a", resourceVersion: "12", uid: "u" }, data: { k: "v" } }
  it("maps namespaces under --namespace-prefix and scale copies, in the path and the body", () => {
    expect(replayNamespace("a", 0, undefined)).toBe("a")
    expect(replayNamespace("a", 0, "r1")).toBe("r1-a")
    expect(replayNamespace("a", 2, "r1")).toBe("r1-a-2")
    const create = recorded({ at: 0, verb: "create", uri: "/api/v1/namespaces/a/configmaps", requestObject: cm, ref: { resource: "configmaps", namespace: "a", name: "x" } })
    const o = out(create, 1, { ...shape, scale: 2, namespacePrefix: "r1" })
    expect(o.uri).toBe("/api/v1/namespaces/r1-a-1/configmaps")
    expect(JSON.parse(o.body!).metadata).toEqual({ name: "x", namespace: "r1-a-1", resourceVersion: "12", uid: "u" })
    expect(o.synthesized).toBe(false)
    // a namespace itself, and a cluster-scoped object in copy 1
    expect(out(recorded({ at: 0, verb: "get", uri: "/api/v1/namespaces/a" }), 1, { ...shape, scale: 2, namespacePrefix: "r1" }).uri).toBe("/api/v1/namespaces/r1-a-1")
    expect(out(recorded({ at: 0, verb: "get", uri: "/api/v1/nodes/n1" }), 1, { ...shape, scale: 2 }).uri).toBe("/api/v1/nodes/n1-1")
    expect(out(recorded({ at: 0, verb: "get", uri: "/api/v1/nodes/n1" }), 0, { ...shape, scale: 2 }).uri).toBe("/api/v1/nodes/n1")
  })

  it("sends an update unconditionally (the recorded resourceVersion and uid are the recorded server's)", () => {
    const update = recorded({ at: 0, verb: "update", uri: "/api/v1/namespaces/a/configmaps/x", requestObject: cm })
    expect(JSON.parse(out(update).body!).metadata).toEqual({ name: "x", namespace: "a" })
    expect(out(update).method).toBe("PUT")
  })

  it("chooses a patch's content type from its body", () => {
    const p = (uri: string) => parseRequestUri(uri) as never
    expect(patchContentType([{ op: "add" }], p("/api/v1/namespaces/a/configmaps/x"))).toBe("application/json-patch+json")
    expect(patchContentType({ apiVersion: "v1", kind: "ConfigMap" }, p("/api/v1/namespaces/a/configmaps/x?fieldManager=kubectl&force=true"))).toBe("application/apply-patch+yaml")
    expect(patchContentType({ data: {} }, p("/api/v1/namespaces/a/configmaps/x"))).toBe("application/strategic-merge-patch+json")
    expect(patchContentType({ spec: {} }, p("/apis/example.com/v1/namespaces/a/widgets/x"))).toBe("application/merge-patch+json")
  })

  it("synthesizes what a Metadata-level event lacks, and says so", () => {
    const md = (verb: string, uri: string) => recorded({ at: 0, verb, uri, level: "Metadata", ref: { resource: "configmaps", namespace: "a", name: "x", apiVersion: "v1" } })
    const created = out(md("create", "/api/v1/namespaces/a/configmaps"))
    expect(created.synthesized).toBe(true)
    expect(JSON.parse(created.body!)).toMatchObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "a" }, data: {} })
    const patched = out(md("patch", "/api/v1/namespaces/a/configmaps/x"))
    expect(patched.headers.slice(0, 2)).toEqual(["content-type", "application/merge-patch+json"])
    expect(out(md("get", "/api/v1/namespaces/a/configmaps/x"))).toMatchObject({ body: undefined, synthesized: false, method: "GET" })
  })

  it("creates a generateName object under the name the recorded server gave it (RequestResponse), so the log's later requests find it", () => {
    const asked = { apiVersion: "v1", kind: "Pod", metadata: { generateName: "web-5d4-", namespace: "a" } }
    const given = { ...asked, metadata: { ...asked.metadata, name: "web-5d4-x7k2p", uid: "u" } }
    const create = (level: string) => recorded({ at: 0, verb: "create", uri: "/api/v1/namespaces/a/pods", code: 201, level, requestObject: asked, responseObject: given, ref: { resource: "pods", namespace: "a", apiVersion: "v1" } })
    const o = out(create("RequestResponse"), 0, { ...shape, namespacePrefix: "r" })
    expect(JSON.parse(o.body!).metadata).toEqual({ generateName: "web-5d4-", namespace: "r-a", name: "web-5d4-x7k2p" })
    expect(o.object).toBe("/pods/r-a/web-5d4-x7k2p")
    // at Request level the name was never written down: the target generates one
    expect(JSON.parse(out(create("Request")).body!).metadata).toEqual({ generateName: "web-5d4-", namespace: "a" })
    // the binding that follows is on the same object, in the same namespace
    const binding = out(recorded({ at: 1, verb: "create", uri: "/api/v1/namespaces/a/pods/web-5d4-x7k2p/binding", requestObject: { metadata: { name: "web-5d4-x7k2p" } } }), 0, { ...shape, namespacePrefix: "r" })
    expect([binding.object, binding.within]).toEqual(["/pods/r-a/web-5d4-x7k2p", "/namespaces//r-a"])
  })

  it("names the object a request is on across group names, and the namespace it is in", () => {
    const key = (verb: string, uri: string, requestObject?: unknown) => {
      const o = out(recorded({ at: 0, verb, uri, requestObject }))
      return [o.object, o.within]
    }
    expect(key("get", "/apis/events.k8s.io/v1/namespaces/a/events/e1")).toEqual(key("patch", "/apis/events.platform/v1/namespaces/a/events/e1", {}))
    expect(key("create", "/api/v1/namespaces", { metadata: { name: "a" } })).toEqual(["/namespaces//a", undefined])
    expect(key("get", "/api/v1/namespaces/a")).toEqual(["/namespaces//a", undefined])
    expect(key("list", "/api/v1/namespaces/a/pods")).toEqual([undefined, "/namespaces//a"])
    expect(key("get", "/api/v1/nodes/n1")).toEqual(["/nodes//n1", undefined])
    expect(key("get", "/version")).toEqual([undefined, undefined])
  })

  it("marks updates of kinds that refuse an unconditional one (Leases) to be sent with the target's resourceVersion", () => {
    const update = (uri: string) => out(recorded({ at: 0, verb: "update", uri, requestObject: { metadata: { name: "x", resourceVersion: "3" } } }))
    expect(update("/apis/coordination.k8s.io/v1/namespaces/a/leases/x").conditional).toBe(true)
    expect(update("/apis/coordination.platform/v1/namespaces/a/leases/x").conditional).toBe(true)
    expect(update("/api/v1/namespaces/a/configmaps/x").conditional).toBe(false)
    expect(update("/apis/example.com/v1/namespaces/a/widgets/x").conditional).toBe(false)
    expect(withResourceVersion(update("/apis/coordination.k8s.io/v1/namespaces/a/leases/x").body!, "42")).toBe('{"metadata":{"name":"x","resourceVersion":"42"}}')
  })

  it("impersonates the recorded user (the impersonated one, if any) and groups, without the implicit groups", () => {
    const r = recorded({ at: 0, verb: "get", uri: "/api/v1/pods", user: "alice", groups: ["dev", "system:authenticated"] })
    expect(identityHeaders(r.event)).toEqual(["impersonate-user", "alice", "impersonate-group", "dev"])
    expect(out(r, 0, { ...shape, impersonate: true }).headers).toEqual(["impersonate-user", "alice", "impersonate-group", "dev"])
    expect(out(r).headers).toEqual([])
    const as = { ...r, event: { ...r.event, impersonatedUser: { username: "system:serviceaccount:a:b", groups: ["system:serviceaccounts"] } } }
    expect(identityHeaders(as.event)).toEqual(["impersonate-user", "system:serviceaccount:a:b", "impersonate-group", "system:serviceaccounts"])
  })
})

describe("what the window keeps of an event", () => {
  const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "a", resourceVersion: "7", uid: "u" }, data: { k: "v" } })
  const ref = (name?: string) => ({ resource: "configmaps", namespace: "a", ...(name ? { name } : {}), apiVersion: "v1" })
  const list = { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "9" }, items: Array.from({ length: 50 }, (_, i) => cm(`c${i}`)) }
  const specs: ReadonlyArray<EventSpec> = [
    { at: 0, verb: "get", uri: "/api/v1/namespaces/a/configmaps/x", ref: ref("x"), responseObject: cm("x") },
    { at: 1, verb: "list", uri: "/api/v1/namespaces/a/configmaps?limit=500", ref: ref(), responseObject: list },
    { at: 2, verb: "create", uri: "/api/v1/namespaces/a/configmaps", code: 201, ref: ref(), requestObject: { metadata: { generateName: "g-" } }, responseObject: cm("g-abcde") },
    { at: 3, verb: "create", uri: "/api/v1/namespaces/a/configmaps", code: 409, ref: ref("dup"), requestObject: cm("dup"), responseObject: { kind: "Status", apiVersion: "v1", code: 409 } },
    { at: 4, verb: "update", uri: "/api/v1/namespaces/a/configmaps/x", ref: ref("x"), requestObject: cm("x"), responseObject: cm("x") },
    { at: 5, verb: "patch", uri: "/api/v1/namespaces/a/configmaps/x", ref: ref("x"), requestObject: { data: { k: "w" } }, responseObject: cm("x") },
    { at: 6, verb: "delete", uri: "/api/v1/namespaces/a/configmaps/y", ref: ref("y"), responseObject: { kind: "Status", apiVersion: "v1", status: "Success" } },
    { at: 7, verb: "watch", uri: "/api/v1/namespaces/a/configmaps?watch=true", stage: "ResponseStarted", ref: ref() }
  ]
  const viewed = (r: RecordedRequest, view: (e: Event) => Event): RecordedRequest => ({ ...r, event: view(r.event) })

  it("sends the same requests from the sending view, which drops every recorded answer but a generated name", () => {
    for (const sp of specs) {
      const r = recorded(sp)
      for (const s of [shape, { ...shape, scale: 2, namespacePrefix: "p", impersonate: true }])
        for (let copy = 0; copy < s.scale; copy++) expect(out(viewed(r, sendingView), copy, s)).toEqual(out(r, copy, s))
      expect(keptByFilter({ users: ["admin"], verbs: [sp.verb], resources: ["cm"], namespaces: ["a"] }, viewed(r, sendingView), t0)).toBe(keptByFilter({ users: ["admin"], verbs: [sp.verb], resources: ["cm"], namespaces: ["a"] }, r, t0))
    }
    const views = specs.map((sp) => sendingView(recorded(sp).event))
    expect(views.map((e) => e.responseObject)).toEqual([undefined, undefined, { metadata: { name: "g-abcde" } }, undefined, undefined, undefined, undefined, undefined])
    expect(views.every((e) => e.sourceIPs === undefined && e.userAgent === undefined && e.annotations === undefined)).toBe(true)
    // what the reorder window reads: the stage, both times, the code
    const e = recorded(specs[0]!).event
    const v = sendingView(e)
    expect([v.auditID, v.stage, v.requestReceivedTimestamp, v.stageTimestamp, v.responseStatus?.code]).toEqual([e.auditID, e.stage, e.requestReceivedTimestamp, e.stageTimestamp, e.responseStatus?.code])
  })

  it("seeds the same world from the seeding view, which drops a list's answer and a Status", () => {
    const seedOf = (view: (e: Event) => Event) => {
      const p = new SeedPlan()
      for (const sp of specs) {
        const r = viewed(recorded(sp), view)
        p.observe(r, out(r))
      }
      return { namespaces: p.namespaces, objects: p.objects }
    }
    expect(seedOf(seedingView)).toEqual(seedOf((e) => e))
    expect(seedOf(seedingView).objects.map((o) => o.key)).toEqual(["configmaps/a/x", "configmaps/a/dup", "configmaps/a/y"])
    const views = specs.map((sp) => seedingView(recorded(sp).event))
    expect(views.map((e) => e.responseObject !== undefined)).toEqual([true, false, true, false, true, true, false, false])
  })
})

describe("seeding", () => {
  const plan = (events: ReadonlyArray<EventSpec>, s: ReplayShape = shape) => {
    const p = new SeedPlan()
    for (const e of events) for (let copy = 0; copy < s.scale; copy++) p.observe(recorded(e), out(recorded(e), copy, s))
    return p
  }
  const ref = (name: string, ns = "a") => ({ resource: "configmaps", namespace: ns, name, apiVersion: "v1" })

  it("seeds what the log reads, updates, patches or deletes before creating it, from the recorded object when it has one", () => {
    const kept = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "old", namespace: "a", resourceVersion: "9", uid: "u", creationTimestamp: "2025-01-01T00:00:00Z" }, data: { k: "v" } }
    const p = plan([
      { at: 0, verb: "get", uri: "/api/v1/namespaces/a/configmaps/old", ref: ref("old"), responseObject: kept },
      { at: 1, verb: "create", uri: "/api/v1/namespaces/a/configmaps", code: 201, ref: ref("new"), requestObject: { metadata: { name: "new" } } },
      { at: 2, verb: "get", uri: "/api/v1/namespaces/a/configmaps/new", ref: ref("new") },
      { at: 3, verb: "delete", uri: "/api/v1/namespaces/b/configmaps/gone", ref: ref("gone", "b"), level: "Metadata" },
      { at: 4, verb: "get", uri: "/api/v1/namespaces/a/configmaps/never", code: 404, ref: ref("never") },
      { at: 5, verb: "create", uri: "/api/v1/namespaces/a/configmaps", code: 409, ref: ref("dup"), requestObject: { metadata: { name: "dup" } } }
    ])
    expect(p.namespaces).toEqual(["a", "b"])
    expect(p.objects.map((o) => [o.key, o.collectionUri, o.synthesized])).toEqual([
      ["configmaps/a/old", "/api/v1/namespaces/a/configmaps", false],
      ["configmaps/b/gone", "/api/v1/namespaces/b/configmaps", true],
      ["configmaps/a/dup", "/api/v1/namespaces/a/configmaps", true]
    ])
    expect(p.objects[0]!.body).toEqual({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "old", namespace: "a" }, data: { k: "v" } })
  })

  it("seeds from the recorded object a later RequestResponse request shows, not a synthesized one from an earlier Metadata-level read", () => {
    const withData = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "a", resourceVersion: "5" }, data: { p: "q" } })
    const p = plan([
      { at: 0, verb: "get", uri: "/api/v1/namespaces/a/configmaps/c", ref: ref("c"), level: "Metadata" },
      { at: 1, verb: "get", uri: "/api/v1/namespaces/a/configmaps/c", ref: ref("c"), responseObject: withData("c") },
      // deleted and created again before the log shows it: what it shows is the new object, not the seed
      { at: 2, verb: "get", uri: "/api/v1/namespaces/a/configmaps/d", ref: ref("d"), level: "Metadata" },
      { at: 3, verb: "delete", uri: "/api/v1/namespaces/a/configmaps/d", ref: ref("d"), level: "Metadata" },
      { at: 4, verb: "get", uri: "/api/v1/namespaces/a/configmaps/d", ref: ref("d"), responseObject: withData("d") }
    ])
    expect(p.objects.map((o) => [o.key, o.synthesized])).toEqual([
      ["configmaps/a/c", false],
      ["configmaps/a/d", true]
    ])
    expect(p.objects[0]!.body).toEqual({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "a" }, data: { p: "q" } })
  })

  it("leaves out a namespace the log creates first, and seeds every scale copy under the prefix", () => {
    const p = plan(
      [
        { at: 0, verb: "create", uri: "/api/v1/namespaces", code: 201, ref: { resource: "namespaces", name: "mine" }, requestObject: { metadata: { name: "mine" } } },
        { at: 1, verb: "get", uri: "/api/v1/namespaces/mine/configmaps/x", code: 404, ref: ref("x", "mine") },
        { at: 2, verb: "patch", uri: "/api/v1/namespaces/theirs/configmaps/y", ref: ref("y", "theirs"), level: "Metadata" }
      ],
      { ...shape, scale: 2, namespacePrefix: "r" }
    )
    expect(p.namespaces).toEqual(["r-theirs", "r-theirs-1"])
    expect(p.objects.map((o) => o.key)).toEqual(["configmaps/r-theirs/y", "configmaps/r-theirs-1/y"])
  })
})

describe("synthesized bodies", () => {
  it.effect("are accepted by the served schema of every stored kind (201 from the simulated server)", () =>
    Effect.gen(function* () {
      const client = inProcessClient(yield* ApiServer)
      for (const r of resourceTypes.filter((t) => !t.virtual)) {
        const ns = r.namespaced ? "default" : undefined
        const body = synthesizeObject({ resource: r.plural }, r.group, r.version, `synth-${r.singular}`, ns)
        expect(body.apiVersion, r.plural).toBe(apiVersionOf(r))
        const created = yield* Effect.either(client.create(r, body, { namespace: ns }))
        expect(created._tag === "Right" ? created.right.code : (created.left as { status?: { message?: string } }).status?.message, r.plural).toBe(201)
      }
    }).pipe(Effect.provide(ApiServer.layer()))
  )
})
