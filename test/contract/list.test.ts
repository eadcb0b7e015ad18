/** Contract tests of lists: paging, continue tokens, remainingItemCount, selectors, order — both layers. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ConfigMaps, Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { clientLayer, transports } from "../support/transports.js"
import { serverAnswer } from "../support/serverAnswer.js"

const pod = (name: string, labels: Record<string, string>, nodeName?: string, phase = "Running") => ({
  metadata: { name, labels },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: "c", image: "i" }] },
  status: { phase }
})

const decodeToken = (token: string) => JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { v: string; rv: number; start: string }

describe.each(transports)("paging over %s", (transport) => {
  const run = <A, E>(effect: Effect.Effect<A, E, ApiClient>) => effect.pipe(Effect.provide(clientLayer(transport)))

  it.effect("limit + continue: key order, same revision on every page, remainingItemCount, last page", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        for (const name of ["c", "a", "e", "b", "d"]) yield* api.create(Pods, pod(name, { app: "web" }), { namespace: "default" })
        const first = yield* api.list(Pods, { namespace: "default", limit: 2 })
        expect(first.items.map((p) => p.metadata.name)).toEqual(["a", "b"])
        expect(first.metadata.remainingItemCount).toBe(3)
        const token = decodeToken(first.metadata.continue!)
        expect(token).toEqual({ v: "meta.platform/v1", rv: Number(first.metadata.resourceVersion), start: "b\u0000" })
        // Writes between pages do not show up: all pages read at the first page's revision.
        yield* api.create(Pods, pod("bb", { app: "web" }), { namespace: "default" })
        yield* api.delete(Pods, "d", { namespace: "default" })
        const second = yield* api.list(Pods, { namespace: "default", limit: 2, continue: first.metadata.continue })
        expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion)
        expect(second.items.map((p) => p.metadata.name)).toEqual(["c", "d"])
        expect(second.metadata.remainingItemCount).toBe(1)
        const last = yield* api.list(Pods, { namespace: "default", limit: 2, continue: second.metadata.continue })
        expect(last.items.map((p) => p.metadata.name)).toEqual(["e"])
        expect(last.metadata.continue).toBeUndefined()
        expect(last.metadata.remainingItemCount).toBeUndefined()
        // Items carry no kind/apiVersion; the list does.
        expect(first.kind).toBe("PodList")
        expect(first.apiVersion).toBe("v1")
        expect(first.items[0]!.kind).toBeUndefined()
        expect(first.items[0]!.apiVersion).toBeUndefined()
      })
    ))

  it.effect("all-namespace lists: namespace/name order, token start relative to the type", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        yield* api.create(ConfigMaps, { metadata: { name: "x" } }, { namespace: "platform-system" })
        yield* api.create(ConfigMaps, { metadata: { name: "y" } }, { namespace: "default" })
        yield* api.create(ConfigMaps, { metadata: { name: "a" } }, { namespace: "platform-public" })
        const page = yield* api.list(ConfigMaps, { limit: 1 })
        expect(page.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual(["default/y"])
        expect(decodeToken(page.metadata.continue!).start).toBe("default/y\u0000")
        const all = yield* api.list(ConfigMaps)
        expect(all.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual(["default/y", "platform-public/a", "platform-system/x"])
      })
    ))

  it.effect("empty lists encode items: [] and a page that ends exactly has no continue", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const empty = yield* api.list(Pods, { namespace: "default" })
        expect(empty.items).toEqual([])
        yield* api.create(Pods, pod("only", {}), { namespace: "default" })
        const exact = yield* api.list(Pods, { namespace: "default", limit: 1 })
        expect(exact.items).toHaveLength(1)
        expect(exact.metadata.continue).toBeUndefined()
        expect(exact.metadata.remainingItemCount).toBeUndefined()
      })
    ))

  it.effect("selectors: full pages, no remainingItemCount", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        for (let i = 0; i < 6; i++) yield* api.create(Pods, pod(`p${i}`, { app: i % 2 === 0 ? "web" : "db" }), { namespace: "default" })
        const page = yield* api.list(Pods, { namespace: "default", labelSelector: "app=web", limit: 2 })
        expect(page.items.map((p) => p.metadata.name)).toEqual(["p0", "p2"])
        expect(page.metadata.continue).toBeDefined()
        expect(page.metadata.remainingItemCount).toBeUndefined()
        const rest = yield* api.list(Pods, { namespace: "default", labelSelector: "app=web", limit: 2, continue: page.metadata.continue })
        expect(rest.items.map((p) => p.metadata.name)).toEqual(["p4"])
        expect(rest.metadata.continue).toBeUndefined()
      })
    ))

  it.effect("label selector operators: =, ==, !=, in, notin, exists, !exists", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        yield* api.create(Pods, pod("a", { app: "web", env: "prod" }), { namespace: "default" })
        yield* api.create(Pods, pod("b", { app: "db", env: "dev" }), { namespace: "default" })
        yield* api.create(Pods, pod("c", { app: "cache" }), { namespace: "default" })
        const names = (labelSelector: string) =>
          Effect.map(api.list(Pods, { namespace: "default", labelSelector }), (l) => l.items.map((p) => p.metadata.name))
        expect(yield* names("app=web")).toEqual(["a"])
        expect(yield* names("app==db")).toEqual(["b"])
        expect(yield* names("app!=web")).toEqual(["b", "c"])
        expect(yield* names("app in (web,cache)")).toEqual(["a", "c"])
        expect(yield* names("app notin (web,cache)")).toEqual(["b"])
        expect(yield* names("env")).toEqual(["a", "b"])
        expect(yield* names("!env")).toEqual(["c"])
        expect(yield* names("env,app!=db")).toEqual(["a"])
      })
    ))

  it.effect("field selectors: metadata.name, metadata.namespace, spec.nodeName, status.phase", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        // Creates start Pending (the status sent is replaced, as upstream's PrepareForCreate does); the node sets Running.
        const a = yield* api.create(Pods, pod("a", {}, "node-1", "Running"), { namespace: "default" })
        expect((a.object.status as { phase: string }).phase).toBe("Pending")
        yield* api.update(Pods, { ...a.object, status: { phase: "Running" } }, { namespace: "default", subresource: "status" })
        yield* api.create(Pods, pod("b", {}, "node-2", "Pending"), { namespace: "default" })
        yield* api.create(Pods, pod("c", {}, "node-1", "Pending"), { namespace: "platform-system" })
        const names = (fieldSelector: string) => Effect.map(api.list(Pods, { fieldSelector }), (l) => l.items.map((p) => p.metadata.name))
        expect(yield* names("metadata.name=b")).toEqual(["b"])
        expect(yield* names("metadata.namespace=platform-system")).toEqual(["c"])
        expect(yield* names("spec.nodeName=node-1")).toEqual(["a", "c"])
        expect(yield* names("status.phase!=Running")).toEqual(["b", "c"])
        expect(yield* names("spec.nodeName=node-1,status.phase=Pending")).toEqual(["c"])
        const bad = yield* serverAnswer(api.list(Pods, { fieldSelector: "spec.bogus=1" }))
        expect(bad.code).toBe(400)
      })
    ))

  it.effect("malformed continue token: 400 with upstream's text", () =>
    run(
      Effect.gen(function* () {
        const api = yield* ApiClient
        const err = yield* serverAnswer(api.list(Pods, { namespace: "default", limit: 1, continue: "abc!def" }))
        expect(err.status).toEqual({
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "invalid continue token: continue key is not valid: illegal base64 data at input byte 3",
          reason: "BadRequest",
          code: 400
        })
        const withRv = yield* serverAnswer(api.list(Pods, { namespace: "default", limit: 1, continue: "abc", resourceVersion: "5" }))
        expect(withRv.code).toBe(400)
        expect(withRv.message).toBe("specifying resource version is not allowed when using continue")
      })
    ))
})
