/**
 * Every kubectl on the machine: `kubectl patch` (strategic merge, its default) merges containers by name, and
 * `kubectl apply --server-side` records its field manager, fails on a field another manager owns with the
 * upstream's conflict text, and takes the field with `--force-conflicts`. Each kubectl works on objects of its
 * own (the versions run concurrently against one server). `--validate=false`: this suite is not about OpenAPI.
 * `kubectl apply --server-side --subresource=status` (kubectl 1.32 and later have the flag) records an Apply entry
 * with subresource status, and a field the manager no longer applies goes.
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

    it("apply --server-side of RBAC manifests in rbac.authorization.k8s.io/v1 (the group kubectl maps them to)", async () => {
      const name = `ssa-${suffix}`
      const rules = [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }]
      const list = {
        apiVersion: "v1",
        kind: "List",
        items: [
          { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name, namespace: "default" }, rules },
          { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name }, rules },
          {
            apiVersion: "rbac.authorization.k8s.io/v1",
            kind: "RoleBinding",
            metadata: { name, namespace: "default" },
            roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
            subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "someone" }]
          }
        ]
      }
      const applied = await kubectl("apply", "--server-side", "--validate=false", "-f", manifest(name, list))
      expect([applied.code, applied.stderr]).toEqual([0, ""])
      expect(applied.stdout.trim().split("\n")).toEqual([
        `role.rbac.authorization.k8s.io/${name} serverside-applied`,
        `clusterrole.rbac.authorization.k8s.io/${name} serverside-applied`,
        `rolebinding.rbac.authorization.k8s.io/${name} serverside-applied`
      ])
      const role = await call(server.url, "GET", `/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/${name}`)
      expect(role.rules).toEqual(rules)
    })

    it.skipIf(Number(version.split(".")[1]) < 32)("apply --server-side --subresource=status: the status and its Apply entry stored", async () => {
      const name = `n-${suffix}`
      await call(server.url, "POST", "/api/v1/nodes", { metadata: { name } })
      const node = (capacity: Record<string, string>) => ({ apiVersion: "v1", kind: "Node", metadata: { name }, status: { capacity } })
      const args = ["apply", "--server-side", "--subresource=status", "--validate=false", "--field-manager=agent", "-f"]
      const first = await kubectl(...args, manifest(`${name}-a`, node({ cpu: "4", memory: "16Gi" })))
      expect(first.stderr).toBe("")
      expect(first.stdout.trim()).toBe(`node/${name} serverside-applied`)
      const applied = await call(server.url, "GET", `/api/v1/nodes/${name}`)
      expect(applied.status.capacity).toEqual({ cpu: "4", memory: "16Gi" })
      const summary = (o: { metadata: { managedFields: ReadonlyArray<{ manager: string; operation: string; subresource?: string; fieldsV1: unknown }> } }) =>
        o.metadata.managedFields.map((e) => [e.manager, e.operation, e.subresource, e.fieldsV1])
      expect(summary(applied)).toEqual([["agent", "Apply", "status", { "f:status": { "f:capacity": { "f:cpu": {}, "f:memory": {} } } }]])
      const second = await kubectl(...args, manifest(`${name}-b`, node({ cpu: "8" })))
      expect(second.stderr).toBe("")
      const after = await call(server.url, "GET", `/api/v1/nodes/${name}`)
      expect(after.status.capacity).toEqual({ cpu: "8" })
      expect(summary(after)).toEqual([["agent", "Apply", "status", { "f:status": { "f:capacity": { "f:cpu": {} } } }]])
    })
  })
})
