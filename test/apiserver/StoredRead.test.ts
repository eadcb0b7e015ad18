/**
 * `storedNow` (StoredRead.ts) answers what a GET without a resourceVersion answers, less kind/apiVersion: the stored
 * object itself, or the same 404 — over namespaced and cluster-scoped objects, the same name in two namespaces, a
 * name in the wrong namespace, a deleted object and one being deleted. The server's immediate view has it; identity
 * clients, which authorize every GET, do not.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { ConfigMaps, Namespaces, Nodes, Pods, type ResourceType } from "../../src/api/Resources.js"
import { ApiServerImpl, defaultConfig } from "../../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { hasStoredRead } from "../../simulator/apiserver/StoredRead.js"
import { WaitFor } from "../../simulator/apiserver/Read.js"

const start = Date.UTC(2026, 0, 1)

const server = () => {
  const s = new ApiServerImpl(defaultConfig, start)
  const create = (resource: ResourceType, obj: object, namespace?: string) => {
    const made = s.createAt(resource, { value: obj }, namespace === undefined ? {} : { namespace }, start)
    if (Either.isLeft(made)) throw new Error(made.left.message)
  }
  create(Namespaces, { metadata: { name: "other" } })
  const pod = (name: string, image: string) => ({ metadata: { name, labels: { image: image.replace(":", "-") } }, spec: { containers: [{ name: "app", image }] } })
  create(Pods, pod("p0", "a:1"), "default")
  create(Pods, pod("p0", "b:1"), "other")
  create(Pods, pod("gone", "c:1"), "default")
  create(Pods, { ...pod("ending", "d:1"), metadata: { name: "ending", finalizers: ["example.com/keep"] } }, "default")
  create(ConfigMaps, { metadata: { name: "cm" }, data: { k: "v" } }, "default")
  create(Nodes, { metadata: { name: "node-0" } })
  s.deleteAt(Pods, "gone", { namespace: "default" }, start + 1)
  s.deleteAt(Pods, "ending", { namespace: "default" }, start + 2)
  return s
}

const reads: ReadonlyArray<readonly [ResourceType, string | undefined, string]> = [
  [Pods, "default", "p0"],
  [Pods, "other", "p0"],
  [Pods, "other", "gone"],
  [Pods, "default", "gone"],
  [Pods, "default", "ending"],
  [Pods, "kube-system", "p0"],
  [ConfigMaps, "default", "cm"],
  [ConfigMaps, "other", "cm"],
  [Nodes, undefined, "node-0"],
  [Nodes, "default", "node-0"],
  [Nodes, undefined, "node-1"],
  [Namespaces, undefined, "other"]
]

const json = (answer: Either.Either<KObject, unknown> | WaitFor): string => {
  if (answer instanceof WaitFor) return `wait ${answer.revision}`
  return Either.isLeft(answer) ? `error ${JSON.stringify(answer.left)}` : JSON.stringify(answer.right)
}

describe("storedNow", () => {
  it("answers what a GET without a resourceVersion does, less kind and apiVersion", () => {
    const s = server()
    let found = 0
    for (const [resource, namespace, name] of reads) {
      const stored = s.storedNow(resource, namespace, name)
      const got = s.getNow(resource, name, namespace === undefined ? {} : { namespace })
      if (Either.isRight(stored)) {
        found++
        // the stored object itself, not a copy
        expect(stored.right).toBe(s.state.find(resource, namespace, name)!.obj)
        expect(stored.right.kind).toBeUndefined()
        expect(json(Either.right({ kind: resource.kind, apiVersion: resource.apiVersion, ...stored.right }))).toBe(json(got))
      } else expect(json(stored)).toBe(json(got))
    }
    expect(found).toBe(7)
    // what a GET of an object of another namespace answers: the 404 with the URL's name
    expect(json(s.storedNow(Pods, "kube-system", "p0"))).toContain('pods \\"p0\\" not found')
  })

  it("is on the server's immediate view only, not on an identity client's", () => {
    const s = server()
    const view = inProcessClient(s).at!(start + 10)!
    expect(hasStoredRead(view)).toBe(true)
    const stored = (view as typeof view & { storedNow: typeof s.storedNow }).storedNow(Pods, "other", "p0")
    expect(Either.isRight(stored) && (stored.right.metadata.labels as Record<string, string>).image).toBe("b-1")
    const identity = inProcessClient(s, { authorization: "Bearer some-token" }).at!(start + 10)!
    expect(hasStoredRead(identity)).toBe(false)
  })
})
