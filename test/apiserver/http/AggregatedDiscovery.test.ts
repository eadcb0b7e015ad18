/**
 * Aggregated discovery (issue 40) as client-go's discovery client negotiates it (`discovery_client.go`
 * `acceptDiscoveryFormats`): v2 or v2beta1 by the Accept header's first acceptable entry, the per-group documents
 * otherwise; the same resources either way; ETag revalidation with 304.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { aggregatedDiscoveryVersion } from "../../../src/api/MediaType.js"
import { apiGroupList, apiResourceList } from "../../../simulator/apiserver/Discovery.js"
import { httpServer } from "../../support/transports.js"
import { send } from "../../support/wire.js"

const v2beta1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
const v2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
/** What kubectl 1.27–1.29 and 1.30–1.33 send. */
const kubectl127 = `${v2beta1},application/json`
const kubectl130 = `${v2},${v2beta1},application/json`

interface Discovered {
  readonly metadata: { readonly name?: string }
  readonly versions: ReadonlyArray<{
    readonly version: string
    readonly freshness: string
    readonly resources: ReadonlyArray<{
      readonly resource: string
      readonly responseKind: { group: string; version: string; kind: string }
      readonly scope: string
      readonly verbs: ReadonlyArray<string>
      readonly subresources?: ReadonlyArray<{ subresource: string; responseKind: { group: string; version: string; kind: string }; verbs: ReadonlyArray<string> }>
    }>
  }>
}

describe("aggregatedDiscoveryVersion (the Accept header's first acceptable entry decides)", () => {
  it("kubectl's headers choose v2beta1 (1.27) and v2 (1.30+); plain JSON, */* or none choose the per-group documents", () => {
    expect(aggregatedDiscoveryVersion(kubectl127)).toBe("v2beta1")
    expect(aggregatedDiscoveryVersion(kubectl130)).toBe("v2")
    expect(aggregatedDiscoveryVersion(`application/json,${v2}`)).toBeUndefined()
    expect(aggregatedDiscoveryVersion("*/*")).toBeUndefined()
    expect(aggregatedDiscoveryVersion(undefined)).toBeUndefined()
  })

  it("an unknown version or kind is skipped for the next entry; q orders entries", () => {
    expect(aggregatedDiscoveryVersion(`application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,${v2beta1}`)).toBe("v2beta1")
    expect(aggregatedDiscoveryVersion(`application/json;g=apidiscovery.k8s.io;v=v2;as=Other,application/json`)).toBeUndefined()
    expect(aggregatedDiscoveryVersion(`application/json;q=0.5,${v2}`)).toBe("v2")
  })
})

describe("GET /api and /apis with an aggregated Accept", () => {
  it.scoped("answer APIGroupDiscoveryList in the version asked, with its Content-Type, ETag and Vary", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      for (const [accept, version] of [[kubectl127, "v2beta1"], [kubectl130, "v2"]] as const) {
        const apis = yield* send(base, "GET", "/apis", { headers: { accept } })
        expect(apis.code).toBe(200)
        expect(apis.headers["content-type"]).toBe(`application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`)
        expect(apis.headers["vary"]).toBe("Accept")
        expect(apis.headers["etag"]).toMatch(/^"[0-9A-F]{128}"$/)
        expect(apis.json).toMatchObject({ kind: "APIGroupDiscoveryList", apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {} })
      }
      const legacy = yield* send(base, "GET", "/apis", { headers: { accept: "application/json" } })
      expect(legacy.headers["content-type"]).toBe("application/json")
      expect(legacy.json).toMatchObject({ kind: "APIGroupList" })
    }))

  it.scoped("lists exactly the resources of the per-group documents, subresources nested with their kind", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const core = ((yield* send(base, "GET", "/api", { headers: { accept: kubectl130 } })).json as { items: ReadonlyArray<Discovered> }).items
      const groups = ((yield* send(base, "GET", "/apis", { headers: { accept: kubectl130 } })).json as { items: ReadonlyArray<Discovered> }).items
      expect(core.map((g) => g.metadata.name)).toEqual([undefined])
      expect(groups.map((g) => g.metadata.name)).toEqual(apiGroupList().groups.map((g) => g.name))
      // Flattened back into `plural` and `plural/sub`, both forms name the same resources and verbs.
      for (const group of [...core, ...groups]) {
        for (const v of group.versions) {
          expect(v.freshness).toBe("Current")
          const flattened = v.resources.flatMap((r) => [
            { name: r.resource, verbs: r.verbs },
            ...(r.subresources ?? []).map((s) => ({ name: `${r.resource}/${s.subresource}`, verbs: s.verbs }))
          ])
          const perGroup = apiResourceList(group.metadata.name ?? "", v.version).resources.map((r) => ({ name: r.name, verbs: r.verbs }))
          expect(flattened).toEqual(perGroup)
        }
      }
      const deployments = groups.find((g) => g.metadata.name === "apps")!.versions[0]!.resources.find((r) => r.resource === "deployments")!
      expect(deployments.responseKind).toEqual({ group: "", version: "", kind: "Deployment" })
      expect(deployments.scope).toBe("Namespaced")
      expect(deployments.subresources).toEqual([
        { subresource: "status", responseKind: { group: "", version: "", kind: "Deployment" }, verbs: ["get", "patch", "update"] },
        { subresource: "scale", responseKind: { group: "autoscaling", version: "v1", kind: "Scale" }, verbs: ["get", "patch", "update"] }
      ])
      const nodes = core[0]!.versions[0]!.resources.find((r) => r.resource === "nodes")!
      expect(nodes.scope).toBe("Cluster")
    }))

  it.scoped("the `all` category (kubectl get all) on pods, services, deployments, replicasets, in both forms", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const categorised = (resources: ReadonlyArray<{ readonly categories?: ReadonlyArray<string> }>, name: (r: never) => string) =>
        resources.filter((r) => r.categories !== undefined).map((r) => [name(r as never), r.categories])
      const perGroup = [...(yield* send(base, "GET", "/api/v1")).json.resources, ...(yield* send(base, "GET", "/apis/apps/v1")).json.resources]
      expect(categorised(perGroup, (r: { name: string }) => r.name)).toEqual([
        ["pods", ["all"]],
        ["services", ["all"]],
        ["deployments", ["all"]],
        ["replicasets", ["all"]]
      ])
      for (const accept of [kubectl127, kubectl130]) {
        const items = [
          ...((yield* send(base, "GET", "/api", { headers: { accept } })).json as { items: ReadonlyArray<Discovered> }).items,
          ...((yield* send(base, "GET", "/apis", { headers: { accept } })).json as { items: ReadonlyArray<Discovered> }).items
        ]
        const resources = items.flatMap((g) => g.versions.flatMap((v) => v.resources)) as ReadonlyArray<{ resource: string; categories?: ReadonlyArray<string> }>
        expect(categorised(resources, (r: { resource: string }) => r.resource)).toEqual([
          ["pods", ["all"]],
          ["services", ["all"]],
          ["deployments", ["all"]],
          ["replicasets", ["all"]]
        ])
      }
    }))

  it.scoped("If-None-Match with the current ETag is 304 with no body; another ETag gets the document", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const first = yield* send(base, "GET", "/apis", { headers: { accept: kubectl130 } })
      const etag = first.headers["etag"] as string
      const again = yield* send(base, "GET", "/apis", { headers: { accept: kubectl130, "if-none-match": etag } })
      expect(again.code).toBe(304)
      expect(again.text).toBe("")
      expect(again.headers["etag"]).toBe(etag)
      const stale = yield* send(base, "GET", "/apis", { headers: { accept: kubectl130, "if-none-match": '"0"' } })
      expect(stale.code).toBe(200)
      // Each version is its own document: v2beta1's ETag differs from v2's.
      const beta = yield* send(base, "GET", "/apis", { headers: { accept: kubectl127 } })
      expect(beta.headers["etag"]).not.toBe(etag)
    }))

  it.scoped("a POST to /apis stays 405 whatever the Accept", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const posted = yield* send(base, "POST", "/apis", { headers: { accept: kubectl130, "content-type": "application/json" }, body: "{}" })
      expect(posted.code).toBe(405)
    }))
})
