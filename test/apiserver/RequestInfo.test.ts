/**
 * One reading of a request (simulator/apiserver/RequestInfo.ts): Go's percent-decoding, upstream's
 * `NewRequestInfo`, and the property the server's safety rests on — routing and authorization read the same
 * RequestInfo, so however a path is spelled they describe the same resource, namespace, name and verb; and an
 * in-process call gets the RequestInfo of the URL the HTTP client would send for it.
 */
import { describe, expect, it } from "@effect/vitest"
import { canonicalGroup } from "../../simulator/apiserver/auth/PolicyRules.js"
import { attributesOf, type RequestAttributes } from "../../simulator/apiserver/auth/RequestAttributes.js"
import { routeOf, type Parsed } from "../../simulator/apiserver/http/Routes.js"
import {
  callRequestInfo,
  MalformedRequestTarget,
  parseQuery,
  parseRequest,
  UndeterminedRequest,
  unescapePath,
  type CallQuery,
  type CallVerb,
  type RequestInfo
} from "../../simulator/apiserver/RequestInfo.js"
import { ConfigMaps, Deployments, Leases, Namespaces, Nodes, Pods, type ResourceType } from "../../src/api/Resources.js"
import { resourcePath } from "../../src/client/HttpTransport.js"

const address = "127.0.0.1:6443"

const infoOf = (method: string, target: string): RequestInfo => {
  const parsed = parseRequest(method, target)
  if (!("info" in parsed)) throw new Error(`${method} ${target}: ${parsed._tag}`)
  return parsed.info
}

describe("unescapePath (Go's URL.Path decoding)", () => {
  it("decodes every escape once, in any case; %2F is a slash; + stays", () => {
    expect(unescapePath("/api/v1/%6eamespaces/%6E%41")).toBe("/api/v1/namespaces/nA")
    expect(unescapePath("/a%2Fb%2fc")).toBe("/a/b/c")
    expect(unescapePath("/%256eamespaces")).toBe("/%6eamespaces")
    expect(unescapePath("/a+b")).toBe("/a+b")
    expect(unescapePath("/%e2%82%ac")).toBe("/€")
    expect(unescapePath("/%FF")).toBe("/\uFFFD")
  })
  it("a % not followed by two hex digits makes the path malformed", () => {
    for (const raw of ["/%ZZ", "/%4", "/%", "/a%G1", "/%%41", "/ok/%2"]) expect(unescapePath(raw)).toBeUndefined()
  })
})

describe("parseQuery (Go's url.ParseQuery, errors ignored)", () => {
  it("drops a pair with a malformed escape or a semicolon, keeps the rest; + is a space", () => {
    const q = parseQuery("fieldSelector=%ZZ&limit=5&a=1;b=2&labelSelector=app%3Dx+y&%zz=1&watch")
    expect([...q]).toEqual([
      ["limit", "5"],
      ["labelSelector", "app=x y"],
      ["watch", ""]
    ])
    expect([...parseQuery("fieldSelector=metadata.name%3Da&x=%E2%82%AC+")]).toEqual([
      ["fieldSelector", "metadata.name=a"],
      ["x", "€ "]
    ])
  })
})

describe("parseRequest (upstream NewRequestInfo over Go's request target)", () => {
  it("a malformed escape anywhere in the path, or a target that is no URI, is malformed; the query is not checked", () => {
    expect(parseRequest("GET", "/api/v1/namespaces/%ZZ/configmaps")).toBeInstanceOf(MalformedRequestTarget)
    expect(parseRequest("GET", "api/v1/pods")).toBeInstanceOf(MalformedRequestTarget)
    const dropped = parseRequest("GET", "/api/v1/pods?fieldSelector=%ZZ&limit=1")
    if (!("info" in dropped)) throw new Error(dropped._tag)
    expect([dropped.info.verb, [...dropped.query]]).toEqual(["list", [["limit", "1"]]])
  })
  it("the absolute form reads as its path; * is a path of its own", () => {
    expect(infoOf("GET", "http://example:6443/api/v1/namespaces/d/pods/p")).toEqual(infoOf("GET", "/api/v1/namespaces/d/pods/p"))
    expect(infoOf("OPTIONS", "*")).toMatchObject({ isResourceRequest: false, path: "*", verb: "options" })
  })
  it("a verb segment with nothing after is upstream's RequestInfo error", () => {
    const undetermined = parseRequest("GET", "/api/v1/watch")
    expect(undetermined).toBeInstanceOf(UndeterminedRequest)
    expect((undetermined as UndeterminedRequest).message).toBe("failed to create RequestInfo: unable to determine kind and namespace from url, /api/v1/watch")
  })
  it("the fields of a resource request", () => {
    expect(infoOf("GET", "/apis/apps/v1/watch/namespaces/d/deployments/x")).toEqual({
      isResourceRequest: true,
      path: "/apis/apps/v1/watch/namespaces/d/deployments/x",
      verb: "watch",
      apiPrefix: "apis",
      apiGroup: "apps",
      apiVersion: "v1",
      namespace: "d",
      resource: "deployments",
      subresource: "",
      name: "x",
      parts: ["deployments", "x"],
      verbInPath: true
    })
    // proxy takes no subresource; empty segments inside the path are kept, as upstream's splitPath keeps them
    expect(infoOf("GET", "/api/v1/proxy/nodes/n1/x")).toMatchObject({ verb: "proxy", resource: "nodes", name: "n1", subresource: "" })
    expect(infoOf("GET", "/api/v1/namespaces//configmaps")).toMatchObject({ verb: "list", namespace: "", resource: "configmaps" })
    expect(infoOf("GET", "/api/v1//pods")).toMatchObject({ resource: "", name: "pods" })
    expect(infoOf("PUT", "/api/v1/namespaces/ns1/status/")).toMatchObject({ verb: "update", namespace: "ns1", resource: "namespaces", name: "ns1", subresource: "status" })
    expect(infoOf("OPTIONS", "/api/v1/pods").verb).toBe("")
  })
  it("a list or watch is named by its field selector's first metadata.name= term, only if its list options decode", () => {
    const named = (query: string) => infoOf("GET", `/api/v1/namespaces/d/configmaps?${query}`).name
    expect(named("fieldSelector=metadata.name%3Da")).toBe("a")
    expect(named("fieldSelector=metadata.name%3D%3Da")).toBe("a")
    expect(named("fieldSelector=metadata.name%3Db,metadata.name%3Da")).toBe("a")
    expect(named("fieldSelector=metadata.name!%3Da")).toBe("")
    expect(named("fieldSelector=%20metadata.name%3Da")).toBe("")
    expect(named("fieldSelector=metadata.name%3Da%2Fb")).toBe("")
    expect(named("fieldSelector=metadata.name%3D..")).toBe("")
    expect(named("fieldSelector=metadata.name%3Da&labelSelector=((")).toBe("")
    expect(named("fieldSelector=metadata.name%3Da&limit=x")).toBe("")
    expect(named("fieldSelector=metadata.name%3Da&limit=5&watch=1")).toBe("a")
    expect(infoOf("GET", "/api/v1/namespaces/d/configmaps?watch=true&fieldSelector=metadata.name%3Da").verb).toBe("watch")
    // A named path is a get, watch parameter or not (upstream serves it as one).
    expect(infoOf("GET", "/api/v1/namespaces/d/configmaps/cm?watch=true").verb).toBe("get")
  })
})

// ---------------------------------------------------------------------------------------------------------------
// The sweep: every segment of representative paths spelled every way.

interface Sample {
  readonly method: string
  readonly segments: ReadonlyArray<string>
  readonly query?: string
}

const samples: ReadonlyArray<Sample> = [
  { method: "GET", segments: ["api", "v1", "namespaces", "other", "configmaps"] },
  { method: "GET", segments: ["api", "v1", "namespaces", "other", "configmaps", "cm1"] },
  { method: "GET", segments: ["api", "v1", "configmaps"], query: "watch=true" },
  { method: "GET", segments: ["api", "v1", "watch", "configmaps"] },
  { method: "GET", segments: ["api", "v1", "watch", "namespaces", "other", "configmaps", "cm1"] },
  { method: "DELETE", segments: ["api", "v1", "namespaces", "other", "configmaps"] },
  { method: "DELETE", segments: ["api", "v1", "watch", "namespaces", "other", "configmaps"] },
  { method: "GET", segments: ["api", "v1", "namespaces", "d", "configmaps"], query: "fieldSelector=metadata.name%3Dcm1" },
  { method: "PATCH", segments: ["api", "v1", "nodes", "n1", "status"] },
  { method: "GET", segments: ["api", "v1", "namespaces", "ns1"] },
  { method: "PUT", segments: ["api", "v1", "namespaces", "ns1", "finalize"] },
  { method: "POST", segments: ["api", "v1", "namespaces", "d", "pods", "p1", "eviction"] },
  { method: "PUT", segments: ["apis", "coordination.platform", "v1", "namespaces", "kube-node-lease", "leases", "l1"] },
  { method: "GET", segments: ["apis", "apps", "v1", "namespaces", "d", "deployments", "x", "scale"] },
  { method: "POST", segments: ["apis", "apps", "v1", "namespaces", "d", "deployments"] },
  // Upstream names (docs/upstream-names.md): a view of a stored type, kube-node-lease the stored platform-node-lease.
  { method: "PUT", segments: ["apis", "coordination.k8s.io", "v1", "namespaces", "kube-node-lease", "leases", "l1"] },
  { method: "GET", segments: ["apis", "rbac.authorization.k8s.io", "v1", "namespaces", "kube-system", "rolebindings"] }
]

const hex = (c: string, upper: boolean) => {
  const h = c.charCodeAt(0).toString(16).padStart(2, "0")
  return `%${upper ? h.toUpperCase() : h}`
}

/** Ways to spell one segment: the same segment once decoded (`same`), or another one (`other`: double encoding). */
const spellings = (segment: string): ReadonlyArray<{ readonly how: string; readonly text: string; readonly same: boolean }> => [
  { how: "every character, lower-case hex", text: [...segment].map((c) => hex(c, false)).join(""), same: true },
  { how: "every character, upper-case hex", text: [...segment].map((c) => hex(c, true)).join(""), same: true },
  { how: "first character (%6e)", text: hex(segment[0]!, false) + segment.slice(1), same: true },
  { how: "first character (%6E)", text: hex(segment[0]!, true) + segment.slice(1), same: true },
  { how: "alternate characters, mixed case", text: [...segment].map((c, i) => (i % 2 === 0 ? hex(c, i % 4 === 0) : c)).join(""), same: true },
  { how: "double-encoded first character (%256e)", text: `%25${hex(segment[0]!, false).slice(1)}${segment.slice(1)}`, same: false },
  { how: "double-encoded every character", text: [...segment].map((c) => `%25${hex(c, true).slice(1)}`).join(""), same: false }
]

/** The verb the route serves for `method` (what the handler does), to set beside the verb authorized. */
const servedVerb = (method: string, route: Parsed & { _tag: "resource" }, query: URLSearchParams): string | undefined => {
  const { name, watch } = route.route
  if (watch) return method === "GET" ? "watch" : undefined // any other method is refused (405)
  switch (method) {
    case "GET":
      return name !== undefined ? "get" : query.get("watch") === "true" ? "watch" : "list"
    case "POST":
      return "create"
    case "PUT":
      return "update"
    case "PATCH":
      return "patch"
    case "DELETE":
      return name !== undefined ? "delete" : "deletecollection"
    default:
      return undefined
  }
}

/** What the route serves, as authorization attributes: they must be the ones authorized. */
const agree = (method: string, route: Parsed, attrs: RequestAttributes, query: URLSearchParams) => {
  if (route._tag !== "resource") return // nothing is served
  expect(attrs.resourceRequest).toBe(true)
  if (!attrs.resourceRequest) return
  const { resource, namespace, name, subresource } = route.route
  const verb = servedVerb(method, route, query)
  if (verb !== undefined) expect(attrs.verb).toBe(verb)
  // A `.k8s.io` group is its `.platform` group to the authorizer (docs/auth.md).
  expect([canonicalGroup(attrs.apiGroup), attrs.resource, attrs.subresource]).toEqual([resource.group, resource.plural, subresource ?? ""])
  const fieldSelected = name === undefined && query.has("fieldSelector")
  if (!fieldSelected) expect(attrs.name).toBe(name ?? "")
  expect(attrs.namespace).toBe(resource.namespaced ? (namespace ?? "") : resource === Namespaces ? (name ?? "") : "")
}

describe("routing and authorization read one RequestInfo (the sweep)", () => {
  it("a segment spelled with escapes is the same request; double-encoded it is another, and both readers agree on it", () => {
    let checked = 0
    for (const sample of samples) {
      const query = sample.query ?? ""
      const plain = infoOf(sample.method, `/${sample.segments.join("/")}${query ? `?${query}` : ""}`)
      expect(routeOf(plain, address)._tag).toBe("resource")
      const variants: Array<{ readonly target: string; readonly same: boolean; readonly how: string }> = []
      sample.segments.forEach((segment, i) => {
        for (const s of spellings(segment)) {
          const segments = sample.segments.map((x, j) => (j === i ? s.text : x))
          variants.push({ target: `/${segments.join("/")}`, same: s.same, how: `segment ${i} ${s.how}` })
        }
        // The slash before a segment as %2F: Go decodes it into a separator.
        if (i > 0) variants.push({ target: `/${sample.segments.slice(0, i).join("/")}%2F${sample.segments.slice(i).join("/")}`, same: true, how: `%2F before ${i}` })
      })
      variants.push({ target: `/${sample.segments.map((s) => [...s].map((c) => hex(c, false)).join("")).join("/")}`, same: true, how: "every segment" })
      for (const v of variants) {
        const target = `${v.target}${query ? `?${query}` : ""}`
        const parsed = parseRequest(sample.method, target)
        if (!("info" in parsed)) throw new Error(`${v.how}: ${target} is ${parsed._tag}`)
        const { info } = parsed
        if (v.same) expect({ target, info: { ...info, path: plain.path } }).toEqual({ target, info: plain })
        else expect({ target, path: info.path }).not.toEqual({ target, path: plain.path })
        agree(sample.method, routeOf(info, address), attributesOf(info), parsed.query)
        checked++
      }
    }
    expect(checked).toBeGreaterThan(600)
  })

  it("through an upstream group name, the request is in the stored namespace for both readers", () => {
    const info = infoOf("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-n%6fde-lease/leases/l1")
    const route = routeOf(info, address)
    expect([info.namespace, route._tag === "resource" ? route.route.namespace : route._tag]).toEqual(["platform-node-lease", "platform-node-lease"])
    expect(infoOf("GET", "/apis/coordination.platform/v1/namespaces/kube-node-lease/leases").namespace).toBe("kube-node-lease")
  })

  it("a double-encoded resource or namespace keyword is never served as the keyword", () => {
    for (const target of ["/api/v1/%256eamespaces/other/configmaps", "/api/v1/%2577atch/configmaps", "/api/v1/namespaces/other/%2563onfigmaps"]) {
      const info = infoOf("GET", target)
      const route = routeOf(info, address)
      expect({ target, route: route._tag === "error" ? route.error.code : route._tag }).toEqual({ target, route: 404 })
    }
  })
})

// ---------------------------------------------------------------------------------------------------------------
// In-process calls: the RequestInfo of the URL the HTTP client sends.

interface Call {
  readonly verb: CallVerb
  readonly resource: ResourceType
  readonly namespace?: string
  readonly name?: string
  readonly subresource?: string
  readonly options?: CallQuery
}

const methods: Readonly<Record<CallVerb, string>> = {
  get: "GET",
  list: "GET",
  watch: "GET",
  create: "POST",
  update: "PUT",
  patch: "PATCH",
  delete: "DELETE",
  deletecollection: "DELETE"
}

/** The request target src/client/HttpTransport.ts sends for a call. */
const urlOf = (c: Call): string => {
  const collection = c.verb === "list" || c.verb === "watch" || c.verb === "deletecollection"
  const path = resourcePath(c.resource, c.namespace, collection ? undefined : c.name, collection ? undefined : c.subresource)
  const query = new URLSearchParams()
  if (c.verb === "watch") query.set("watch", "true")
  if (collection && c.verb !== "deletecollection")
    for (const [k, v] of Object.entries(c.options ?? {})) if (v !== undefined) query.set(k, String(v))
  const q = query.toString()
  return q ? `${path}?${q}` : path
}

const calls: ReadonlyArray<Call> = [
  { verb: "get", resource: Pods, namespace: "d", name: "p" },
  { verb: "get", resource: Namespaces, name: "team" },
  { verb: "get", resource: Nodes, name: "n1" },
  { verb: "list", resource: Pods, namespace: "d" },
  { verb: "list", resource: Pods },
  { verb: "list", resource: ConfigMaps, namespace: "d", options: { fieldSelector: "metadata.name=cm" } },
  { verb: "list", resource: ConfigMaps, namespace: "d", options: { fieldSelector: "metadata.name=cm", labelSelector: "((" } },
  { verb: "list", resource: Namespaces, options: { fieldSelector: "metadata.name=team", limit: 10 } },
  { verb: "watch", resource: Pods, options: { fieldSelector: "spec.nodeName=n1" } },
  { verb: "watch", resource: Leases, namespace: "kube-node-lease", options: { fieldSelector: "metadata.name==n1" } },
  { verb: "create", resource: Pods, namespace: "d" },
  { verb: "create", resource: Pods, namespace: "d", name: "p", subresource: "eviction" },
  { verb: "create", resource: Namespaces },
  { verb: "update", resource: Leases, namespace: "kube-node-lease", name: "n1" },
  { verb: "update", resource: Nodes, name: "n1", subresource: "status" },
  { verb: "update", resource: Namespaces, name: "team", subresource: "finalize" },
  { verb: "patch", resource: Deployments, namespace: "d", name: "x", subresource: "scale" },
  { verb: "delete", resource: Pods, namespace: "d", name: "p" },
  { verb: "delete", resource: Namespaces, name: "team" },
  { verb: "deletecollection", resource: ConfigMaps, namespace: "d" },
  { verb: "get", resource: Pods, namespace: "d", name: "" },
  { verb: "create", resource: Pods, namespace: "d", name: "", subresource: "eviction" },
  { verb: "create", resource: Pods, namespace: "d", subresource: "binding" }
]

describe("callRequestInfo (in-process calls)", () => {
  it("is the RequestInfo of the URL the HTTP client sends for the same call", () => {
    for (const c of calls) {
      const url = urlOf(c)
      const overHttp = infoOf(methods[c.verb], url)
      const inProcess = callRequestInfo(c.verb, c.resource, c.namespace, c.name, c.subresource, c.options)
      expect({ url, info: { ...inProcess, path: overHttp.path, parts: [...inProcess.parts] } }).toEqual({ url, info: overHttp })
    }
  })
  it("a namespace object is in its own namespace; a field-selected list is named; a nameless get is a list", () => {
    expect(callRequestInfo("delete", Namespaces, undefined, "team")).toMatchObject({ verb: "delete", namespace: "team", name: "team" })
    expect(callRequestInfo("watch", Leases, "l", undefined, undefined, { fieldSelector: "metadata.name=n1" })).toMatchObject({ verb: "watch", namespace: "l", name: "n1" })
    expect(callRequestInfo("get", Pods, "d", "")).toMatchObject({ verb: "list", name: "" })
  })
})
