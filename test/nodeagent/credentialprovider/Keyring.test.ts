import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import {
  cachePurgeIntervalMs,
  combine,
  makeProvider,
  provideCredentials,
  ProviderCache,
  type CredentialProviderResponse
} from "../../../simulator/nodeagent/credentialprovider/Keyring.js"

const auth = (u: string) => ({ "registry.io": { username: u, password: "p" } })

describe("ProviderCache (plugin.go cache rules)", () => {
  it("keys by cacheKeyType and looks up image, registry, global", () => {
    const cache = new ProviderCache(60_000, 0)
    cache.store("registry.io/a:1", { cacheKeyType: "Image", cacheDuration: 10_000, auth: auth("image") }, 0)
    expect(cache.lookup("registry.io/a:1", 1)).toStrictEqual(auth("image"))
    expect(cache.lookup("registry.io/b:1", 1)).toBeUndefined()
    cache.store("registry.io/b:1", { cacheKeyType: "Registry", cacheDuration: 10_000, auth: auth("registry") }, 0)
    expect(cache.lookup("registry.io/c:1", 1)).toStrictEqual(auth("registry"))
    // the image entry comes first
    expect(cache.lookup("registry.io/a:1", 1)).toStrictEqual(auth("image"))
    cache.store("other.io/x", { cacheKeyType: "Global", cacheDuration: 10_000, auth: auth("global") }, 0)
    expect(cache.lookup("third.io/y", 1)).toStrictEqual(auth("global"))
  })

  it("expires an entry once the clock is past its expiry", () => {
    const cache = new ProviderCache(60_000, 0)
    cache.store("r.io/a", { cacheKeyType: "Image", cacheDuration: 10_000, auth: auth("x") }, 1_000)
    expect(cache.lookup("r.io/a", 11_000)).toStrictEqual(auth("x"))
    expect(cache.lookup("r.io/a", 11_001)).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  it("cacheDuration 0 is not cached; absent takes defaultCacheDuration, whose 0 is not cached either", () => {
    const cache = new ProviderCache(30_000, 0)
    expect(cache.store("r.io/a", { cacheKeyType: "Image", cacheDuration: 0, auth: auth("x") }, 0)).toStrictEqual(auth("x"))
    expect(cache.lookup("r.io/a", 1)).toBeUndefined()
    cache.store("r.io/b", { cacheKeyType: "Image", auth: auth("y") }, 0)
    expect(cache.lookup("r.io/b", 30_000)).toStrictEqual(auth("y"))
    expect(cache.lookup("r.io/b", 30_001)).toBeUndefined()
    const uncached = new ProviderCache(0, 0)
    uncached.store("r.io/c", { cacheKeyType: "Image", auth: auth("z") }, 0)
    expect(uncached.lookup("r.io/c", 1)).toBeUndefined()
  })

  it("refuses a cacheKeyType it does not know", () => {
    const cache = new ProviderCache(30_000, 0)
    expect(cache.store("r.io/a", { cacheKeyType: "Repository", auth: auth("x") }, 0)).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  it("purges expired entries nobody reads every 15 minutes", () => {
    const cache = new ProviderCache(60_000, 0)
    cache.store("r.io/a", { cacheKeyType: "Image", cacheDuration: 1_000, auth: auth("x") }, 0)
    cache.store("s.io/b", { cacheKeyType: "Image", cacheDuration: 1_000, auth: auth("x") }, 0)
    expect(cache.lookup("t.io/c", cachePurgeIntervalMs)).toBeUndefined()
    expect(cache.size).toBe(2)
    expect(cache.lookup("t.io/c", cachePurgeIntervalMs + 1)).toBeUndefined()
    expect(cache.size).toBe(0)
  })
})

describe("providers", () => {
  const config = (name: string, matchImages: ReadonlyArray<string>) => ({ name, matchImages, defaultCacheDuration: 60_000 })

  it.effect("runs the plugin only for matching images, and once per cache period", () =>
    Effect.gen(function* () {
      let calls = 0
      const exec = (image: string) =>
        Effect.sync((): CredentialProviderResponse => {
          calls++
          return { cacheKeyType: "Registry", auth: { [image.split("/")[0]!]: { username: `u${calls}`, password: "p" } } }
        })
      const p = makeProvider(config("a", ["*.example.io"]), exec, 0)
      expect(yield* p.provide("docker.io/nginx")).toStrictEqual({})
      expect(calls).toBe(0)
      expect(yield* p.provide("r.example.io/app:1")).toStrictEqual({ "r.example.io": { username: "u1", password: "p" } })
      expect(yield* p.provide("r.example.io/other:2")).toStrictEqual({ "r.example.io": { username: "u1", password: "p" } })
      expect(calls).toBe(1)
      yield* TestClock.adjust(60_001)
      expect(yield* p.provide("r.example.io/other:2")).toStrictEqual({ "r.example.io": { username: "u2", password: "p" } })
      expect(calls).toBe(2)
    })
  )

  it.effect("a failing plugin gives no credentials and is remembered", () =>
    Effect.gen(function* () {
      const p = makeProvider(config("a", ["r.io"]), () => Effect.fail("boom"), 0)
      expect(yield* p.provide("r.io/x")).toStrictEqual({})
      expect(p.failures).toStrictEqual(["boom"])
    })
  )

  it.effect("combines providers; the earlier one wins on the same key", () =>
    Effect.gen(function* () {
      const answer = (u: string) => () => Effect.succeed<CredentialProviderResponse>({ cacheKeyType: "Global", auth: { "r.io": { username: u, password: "" }, [`${u}.io`]: { username: u, password: "" } } })
      const first = makeProvider(config("first", ["r.io"]), answer("first"), 0)
      const second = makeProvider(config("second", ["r.io"]), answer("second"), 0)
      const creds = yield* provideCredentials([first, second], "r.io/app")
      expect(creds).toStrictEqual({
        "r.io": { username: "first", password: "" },
        "first.io": { username: "first", password: "" },
        "second.io": { username: "second", password: "" }
      })
      expect(combine([{}, auth("b"), auth("c")])).toStrictEqual(auth("b"))
    })
  )
})
