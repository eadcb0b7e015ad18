/**
 * Every kubectl on the machine: `kubectl patch` (strategic merge, its default) merges containers by name, and
 * `kubectl apply --server-side` records its field manager, fails on a field another manager owns with the
 * upstream's conflict text, and takes the field with `--force-conflicts`. Each kubectl works on objects of its
 * own (the versions run concurrently against one server). `--validate=false`: this suite is not about OpenAPI.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, findKubectls, run, startServer } from "./support/clients.js"

const kubectls = findKubectls()
let server: Awaited<ReturnType<typeof startServer>>
const dir = mkdtempSync(join(tmpdir(), "clustersim-apply-"))

beforeAll(async () => {
  server = await startServer()
})

afterAll(async () => server?.close())

/** A manifest file for `-f`. */
const manifest = (name: string, doc: object): string => {
  const file = join(dir, `${name}.json`)
  writeFileSync(file, JSON.stringify(doc))
  return file
}

const configMap = (name: string, data: Record<string, string>) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data })

describe("kubectl patch and server-side apply", () => {
  it("is installed (the suite fails without one)", () => {
    expect(kubectls.length).toBeGreaterThan(0)
  })

  describe.concurrent.each(kubectls)("kubectl $version", ({ path, version }) => {
    const kubectl = (...args: ReadonlyArray<string>) => run(path, ["--server", server.url, ...args])
    const suffix = version.replace(".", "-")

    it("patch (strategic) merges containers by name", async () => {
      const name = `p-${suffix}`
      await call(server.url, "POST", "/api/v1/namespaces/default/pods", {
        metadata: { name },
        spec: { containers: [{ name: "a", image: "a:1" }, { name: "b", image: "b:1" }] }
      })
      const patched = await kubectl("patch", "pod", name, "-p", JSON.stringify({ spec: { containers: [{ name: "b", image: "b:2" }] } }))
      expect(patched.stderr).toBe("")
      expect(patched.stdout.trim()).toBe(`pod/${name} patched`)
      const pod = await call(server.url, "GET", `/api/v1/namespaces/default/pods/${name}`)
      expect(pod.spec.containers.map((c: { name: string; image: string }) => [c.name, c.image])).toEqual([["a", "a:1"], ["b", "b:2"]])
      // A merge patch replacing the list is refused by pod update validation, as upstream.
      const dropped = await kubectl("patch", "pod", name, "--type=merge", "-p", JSON.stringify({ spec: { containers: [{ name: "b", image: "b:3" }] } }))
      expect(dropped.code).not.toBe(0)
      expect(dropped.stderr).toContain(`The Pod "${name}" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers`)
    })

    it("apply --server-side: managed fields, a conflict, --force-conflicts", async () => {
      const name = `cm-${suffix}`
      const first = await kubectl("apply", "--server-side", "--validate=false", "--field-manager=tool-a", "-f", manifest(`${name}-a`, configMap(name, { a: "1" })))
      expect(first.stderr).toBe("")
      expect(first.stdout.trim()).toBe(`configmap/${name} serverside-applied`)
      const created = await call(server.url, "GET", `/api/v1/namespaces/default/configmaps/${name}`)
      expect(created.metadata.managedFields).toEqual([
        { manager: "tool-a", operation: "Apply", apiVersion: "v1", time: created.metadata.creationTimestamp, fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:a": {} } } }
      ])
      const changed = manifest(`${name}-b`, configMap(name, { a: "2" }))
      const conflict = await kubectl("apply", "--server-side", "--validate=false", "--field-manager=tool-b", "-f", changed)
      expect(conflict.code).not.toBe(0)
      expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "tool-a": .data.a')
      const forced = await kubectl("apply", "--server-side", "--validate=false", "--field-manager=tool-b", "--force-conflicts", "-f", changed)
      expect(forced.stderr).toBe("")
      const after = await call(server.url, "GET", `/api/v1/namespaces/default/configmaps/${name}`)
      expect(after.data).toEqual({ a: "2" })
      expect(after.metadata.managedFields.map((e: { manager: string; fieldsV1: unknown }) => [e.manager, e.fieldsV1])).toEqual([["tool-b", { "f:data": { "f:a": {} } }]])
    })
  })
})
