/** Server-side Tables over HTTP: negotiation, includeObject, paging fields, views, watch, protobuf → 406. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "undici"
import { httpServer } from "../../support/transports.js"

const kubectlAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

const send = (base: string, method: string, path: string, opts: { body?: unknown; accept?: string } = {}) =>
  Effect.promise(async () => {
    const res = await request(base + path, {
      method: method as "GET",
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      headers: { "content-type": "application/json", ...(opts.accept ? { accept: opts.accept } : {}) }
    })
    const text = await res.body.text()
    return { code: res.statusCode, contentType: res.headers["content-type"], json: text.startsWith("{") ? JSON.parse(text) : undefined }
  })

const watchLines = (base: string, path: string, accept: string, n: number) =>
  Effect.promise(async () => {
    const controller = new AbortController()
    const res = await request(base + path, { signal: controller.signal, headers: { accept } })
    const lines: Array<any> = []
    let buffered = ""
    for await (const chunk of res.body) {
      buffered += String(chunk)
      let nl: number
      while ((nl = buffered.indexOf("\n")) >= 0 && lines.length < n) {
        lines.push(JSON.parse(buffered.slice(0, nl)))
        buffered = buffered.slice(nl + 1)
      }
      if (lines.length >= n) break
    }
    controller.abort()
    return lines
  })

const seed = (base: string) =>
  Effect.gen(function* () {
    for (const name of ["a", "b", "c"]) {
      const r = yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name, labels: { app: "t" } }, data: { k: "v", l: "w" } } })
      expect(r.code).toBe(201)
    }
  })

describe("server-side Table", () => {
  it.scoped("kubectl's Accept gets a meta.k8s.io/v1 Table with the printer columns and PartialObjectMetadata rows", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* seed(base)
      const t = yield* send(base, "GET", "/api/v1/namespaces/default/configmaps", { accept: kubectlAccept })
      expect(t.code).toBe(200)
      expect(t.contentType).toBe("application/json")
      expect(t.json.kind).toBe("Table")
      expect(t.json.apiVersion).toBe("meta.k8s.io/v1")
      expect(t.json.metadata.resourceVersion).toMatch(/^\d+$/)
      expect(t.json.columnDefinitions.map((c: any) => Object.keys(c))).toEqual([
        ["name", "type", "format", "description", "priority"],
        ["name", "type", "format", "description", "priority"],
        ["name", "type", "format", "description", "priority"]
      ])
      expect(t.json.columnDefinitions.map((c: any) => c.name)).toEqual(["Name", "Data", "Age"])
      expect(t.json.rows.map((r: any) => r.cells.slice(0, 2))).toEqual([["a", 2], ["b", 2], ["c", 2]])
      expect(t.json.rows[0].object).toMatchObject({ kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: { name: "a", namespace: "default", labels: { app: "t" } } })
      const beta = yield* send(base, "GET", "/api/v1/namespaces/default/configmaps/a", { accept: "application/json;as=Table;v=v1beta1;g=meta.platform" })
      expect(beta.json.apiVersion).toBe("meta.platform/v1beta1")
      expect(beta.json.rows).toHaveLength(1)
      expect(beta.json.metadata.resourceVersion).toBe(beta.json.rows[0].object.metadata.resourceVersion)
    })
  )

  it.scoped("includeObject None / Object / Metadata, and a bad value is a 400", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* seed(base)
      const accept = "application/json;as=Table;v=v1;g=meta.k8s.io"
      const none = yield* send(base, "GET", "/api/v1/namespaces/default/configmaps?includeObject=None", { accept })
      expect(none.json.rows.every((r: any) => !("object" in r))).toBe(true)
      const full = yield* send(base, "GET", "/api/v1/namespaces/default/configmaps?includeObject=Object", { accept })
      expect(full.json.rows[0].object).toMatchObject({ kind: "ConfigMap", apiVersion: "v1", data: { k: "v", l: "w" } })
      const meta = yield* send(base, "GET", "/api/v1/namespaces/default/configmaps?includeObject=Metadata", { accept })
      expect(meta.json.rows[0].object.kind).toBe("PartialObjectMetadata")
      expect(meta.json.rows[0].object.data).toBeUndefined()
      const bad = yield* send(base, "GET", "/api/v1/namespaces/default/configmaps?includeObject=All", { accept })
      expect(bad.code).toBe(400)
      expect(bad.json.message).toBe(`Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`)
    })
  )

  it.scoped("paging fields in the Table's metadata", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* seed(base)
      const page = yield* send(base, "GET", "/api/v1/namespaces/default/configmaps?limit=2", { accept: kubectlAccept })
      expect(page.json.rows).toHaveLength(2)
      expect(page.json.metadata.continue).toEqual(expect.any(String))
      expect(page.json.metadata.remainingItemCount).toBe(1)
      const rest = yield* send(base, "GET", `/api/v1/namespaces/default/configmaps?limit=2&continue=${encodeURIComponent(page.json.metadata.continue)}`, { accept: kubectlAccept })
      expect(rest.json.rows.map((r: any) => r.cells[0])).toEqual(["c"])
      expect(rest.json.metadata.continue).toBeUndefined()
    })
  )

  it.scoped("a protobuf Table alone is 406; with a JSON fallback the answer is the plain list", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const alone = yield* send(base, "GET", "/api/v1/namespaces", { accept: "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io" })
      expect(alone.code).toBe(406)
      expect(alone.json.message).toBe("only the following media types are accepted: application/json, application/yaml, application/vnd.platform.protobuf")
      const fallback = yield* send(base, "GET", "/api/v1/namespaces", { accept: "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json" })
      expect(fallback.json.kind).toBe("NamespaceList")
    })
  )

  it.scoped("namespaces, leases through the upstream group, core v1 events: each kind's columns", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const ns = yield* send(base, "GET", "/api/v1/namespaces", { accept: kubectlAccept })
      expect(ns.json.columnDefinitions.map((c: any) => c.name)).toEqual(["Name", "Status", "Age"])
      expect(ns.json.rows.map((r: any) => r.cells.slice(0, 2))).toContainEqual(["default", "Active"])
      yield* send(base, "POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", { body: { metadata: { name: "n1" }, spec: { holderIdentity: "n1" } } })
      const leases = yield* send(base, "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?includeObject=Object", { accept: kubectlAccept })
      expect(leases.json.rows.map((r: any) => r.cells.slice(0, 2))).toEqual([["n1", "n1"]])
      expect(leases.json.rows[0].object).toMatchObject({ apiVersion: "coordination.k8s.io/v1", metadata: { namespace: "kube-node-lease" } })
      const events = yield* send(base, "GET", "/api/v1/events", { accept: kubectlAccept })
      expect(events.json.columnDefinitions.map((c: any) => `${c.name}:${c.priority}`)).toEqual([
        "Last Seen:0",
        "Type:0",
        "Reason:0",
        "Object:0",
        "Subobject:1",
        "Source:1",
        "Message:0",
        "First Seen:1",
        "Count:1",
        "Name:1"
      ])
      expect(events.json.rows).toEqual([])
    })
  )

  it.scoped("a watch as Tables: column definitions on the first event only", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* seed(base)
      const events = yield* watchLines(base, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0&includeObject=None", kubectlAccept, 3)
      expect(events.map((e) => e.type)).toEqual(["ADDED", "ADDED", "ADDED"])
      expect(events.map((e) => e.object.kind)).toEqual(["Table", "Table", "Table"])
      expect(events[0].object.columnDefinitions.map((c: any) => c.name)).toEqual(["Name", "Data", "Age"])
      expect(events[1].object.columnDefinitions).toBeNull()
      expect(events.map((e) => e.object.rows[0].cells[0]).sort()).toEqual(["a", "b", "c"])
      expect(events[0].object.rows[0].object).toBeUndefined()
    })
  )
})
