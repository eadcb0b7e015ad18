/**
 * The bodies a Metadata-level log's replay makes up (src/replay/BodySynthesis.ts), sent over HTTP as the replay sends
 * them to the simulated server with `fieldValidation=Strict`: for every stored kind and every upstream group name the
 * server serves writes at (`coordination.k8s.io` Leases, `events.k8s.io` Events, RBAC), the synthesized object is
 * created (201, no warning: no unknown field, every field of the right type, the kind's own checks passed) and the
 * synthesized patch applies (200).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { apiVersionOf, resourceTypes } from "../../src/api/Resources.js"
import { findView, viewGroupVersions } from "../../src/api/ServedNames.js"
import { synthesizedPatch, synthesizeObject } from "../../src/replay/BodySynthesis.js"
import { collectionUri, parseRequestUri, type RequestPath } from "../../src/replay/RequestUri.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"

/** Every group/version/plural a write may be recorded at: the stored kinds, then their upstream-named views. */
const writablePaths = (): Array<{ readonly group: string; readonly version: string; readonly plural: string; readonly namespaced: boolean }> => {
  const stored = resourceTypes.filter((t) => !t.virtual).map((t) => ({ group: t.group, version: t.version, plural: t.plural, namespaced: t.namespaced }))
  const views = viewGroupVersions.flatMap((gv) => {
    const [group, version] = gv.includes("/") ? [gv.slice(0, gv.lastIndexOf("/")), gv.slice(gv.lastIndexOf("/") + 1)] : ["", gv]
    return resourceTypes.flatMap((t) => {
      const v = findView(group, version, t.plural)
      return v !== undefined && !v.readOnly && !t.virtual ? [{ group, version, plural: t.plural, namespaced: t.namespaced }] : []
    })
  })
  return [...stored, ...views]
}

describe("synthesized bodies", () => {
  it.scoped("are created with fieldValidation=Strict at every writable group name, without a warning, and take the synthesized patch", () =>
    Effect.gen(function* () {
      const { url } = yield* serveHttp({ host: "127.0.0.1", port: 0, admin: false })
      const paths = writablePaths()
      // the upstream names are among them (a real cluster's Metadata-level log names these groups)
      expect(paths.map((p) => `${p.group}/${p.plural}`)).toEqual(expect.arrayContaining(["coordination.k8s.io/leases", "events.k8s.io/events", "rbac.authorization.k8s.io/rolebindings"]))
      for (const p of paths) {
        const name = `synth-${p.group.replace(/\./g, "-") || "core"}-${p.plural}`
        const ns = p.namespaced ? "default" : undefined
        const prefix = p.group === "" ? `/api/${p.version}` : `/apis/${p.group}/${p.version}`
        const path = parseRequestUri(`${prefix}${ns ? `/namespaces/${ns}` : ""}/${p.plural}/${name}`) as RequestPath
        const body = synthesizeObject({ resource: p.plural }, p.group, p.version, name, ns)
        const what = `${p.group}/${p.version}/${p.plural}`
        expect(body.apiVersion, what).toBe(p.group === "" ? p.version : `${p.group}/${p.version}`)
        const created = yield* Effect.promise(() =>
          fetch(`${url}${collectionUri(path, ns)}?fieldValidation=Strict`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
        )
        const text = yield* Effect.promise(() => created.text())
        expect([created.status, created.headers.get("warning")], `${what}: ${text}`).toEqual([201, null])
        const stored = JSON.parse(text) as { metadata: { name: string; annotations?: Record<string, string> } }
        expect([stored.metadata.name, stored.metadata.annotations?.["clustersim.io/replay"]], what).toEqual([name, "synthesized"])
        const patched = yield* Effect.promise(() =>
          fetch(`${url}${collectionUri(path, ns)}/${name}?fieldValidation=Strict`, { method: "PATCH", headers: { "content-type": "application/merge-patch+json" }, body: JSON.stringify(synthesizedPatch("a-1")) })
        )
        expect(patched.status, `${what}: ${yield* Effect.promise(() => patched.text())}`).toBe(200)
      }
      // the stored kinds' apiVersion is the one they are served at
      for (const t of resourceTypes.filter((r) => !r.virtual)) expect(synthesizeObject({ resource: t.plural }, t.group, t.version, "x", undefined).apiVersion).toBe(apiVersionOf(t))
    }).pipe(Effect.provide(ApiServer.layer()))
  )
})
