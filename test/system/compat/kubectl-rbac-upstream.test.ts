/**
 * RBAC manifests in upstream's group (`rbac.authorization.k8s.io/v1`, what a real cluster takes and what
 * `clustersim job` prints) applied with kubectl to `serve --tls` with RBAC (docs/upstream-names.md): discovery lists
 * the group, so kubectl maps the kinds; the objects are the spec's RBAC objects, read back in the group they were
 * asked in; the authorizer follows them whichever group a role or binding was written in and whichever name its
 * `roleRef.apiGroup` uses. The oldest and the newest kubectl (aggregated discovery v2beta1 and v2).
 */
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import { stringify } from "yaml"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { findKubectls, run, startTlsRbacServer, type TlsRbacServer } from "./support/clients.js"

const all = findKubectls()
const kubectls = [...new Map([all[0]!, all.at(-1)!].map((k) => [k.version, k])).values()]
const tokenOf = (version: string) => `tok-${version}`
const userOf = (version: string) => `reader-${version.replace(".", "-")}`
const tokens = new Map(kubectls.map((k) => [tokenOf(k.version), { name: userOf(k.version), uid: k.version, groups: [] }] as const))

let server: TlsRbacServer

beforeAll(async () => {
  server = await startTlsRbacServer("clustersim-rbac-upstream-", tokens)
}, 60_000)

afterAll(() => server.close())

/** Upstream RBAC: a Role and binding (pods in `ns`), a ClusterRole and binding (namespaces), all in `rbac.authorization.k8s.io`. */
const manifests = (ns: string, user: string) =>
  [
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "pod-reader", namespace: ns }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] }] },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "read-pods", namespace: ns },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "pod-reader" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }]
    },
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: `${ns}-ns-reader` }, rules: [{ apiGroups: [""], resources: ["namespaces"], verbs: ["get"] }] },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: `${ns}-ns-reader` },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: `${ns}-ns-reader` },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }]
    }
  ]
    .map((d) => stringify(d))
    .join("---\n")

describe("kubectl apply of upstream-group RBAC on serve --tls with RBAC", () => {
  describe.each(kubectls)("kubectl $version", ({ path: bin, version }) => {
    const asAdmin = (...args: ReadonlyArray<string>) => run(bin, ["--kubeconfig", server.adminConfig, ...args], 60_000)
    const asUser = (...args: ReadonlyArray<string>) => run(bin, ["--server", server.url, "--certificate-authority", server.pki.caFile, "--token", tokenOf(version), ...args], 60_000)
    const ns = `up-${version.replace(".", "-")}`
    const user = userOf(version)

    it("apply (server dry-run, then for real, then again unchanged); can-i and the requests follow the bindings", async () => {
      const file = path.join(server.pki.dir, `${ns}.yaml`)
      writeFileSync(file, manifests(ns, user))
      expect((await asAdmin("create", "namespace", ns)).code).toBe(0)
      expect((await asUser("auth", "can-i", "list", "pods", "-n", ns)).stdout.trim()).toBe("no")

      const dry = await asAdmin("apply", "--dry-run=server", "-f", file)
      expect(dry.code, dry.stderr).toBe(0)
      expect(dry.stdout).toContain(`role.rbac.authorization.k8s.io/pod-reader created (server dry run)`)
      const applied = await asAdmin("apply", "-f", file)
      expect([applied.code, applied.stderr]).toEqual([0, ""])
      expect(applied.stdout.trim().split("\n")).toEqual([
        "role.rbac.authorization.k8s.io/pod-reader created",
        "rolebinding.rbac.authorization.k8s.io/read-pods created",
        `clusterrole.rbac.authorization.k8s.io/${ns}-ns-reader created`,
        `clusterrolebinding.rbac.authorization.k8s.io/${ns}-ns-reader created`
      ])
      const again = await asAdmin("apply", "-f", file)
      expect([again.code, again.stderr]).toEqual([0, ""])
      expect(again.stdout).toContain("role.rbac.authorization.k8s.io/pod-reader unchanged")
      expect(again.stdout).toContain(`clusterrolebinding.rbac.authorization.k8s.io/${ns}-ns-reader unchanged`)

      // read back in the group asked for, and under the spec's group: one object
      const upstream = JSON.parse((await asAdmin("get", "roles.rbac.authorization.k8s.io", "pod-reader", "-n", ns, "-o", "json")).stdout)
      const spec = JSON.parse((await asAdmin("get", "roles.rbac.authorization.platform", "pod-reader", "-n", ns, "-o", "json")).stdout)
      expect([upstream.apiVersion, spec.apiVersion]).toEqual(["rbac.authorization.k8s.io/v1", "rbac.authorization.platform/v1"])
      expect(upstream.metadata.uid).toBe(spec.metadata.uid)

      for (const [verb, resource, namespaced, answer] of [
        ["list", "pods", true, "yes"],
        ["get", "pods", true, "yes"],
        ["delete", "pods", true, "no"],
        ["get", `namespaces/${ns}`, false, "yes"],
        ["list", "namespaces", false, "no"]
      ] as const) {
        const can = await asUser("auth", "can-i", verb, resource, ...(namespaced ? ["-n", ns] : []))
        expect([verb, resource, can.stdout.trim()]).toEqual([verb, resource, answer])
      }
      const pods = await asUser("get", "pods", "-n", ns)
      expect([pods.code, pods.stderr.trim()]).toEqual([0, `No resources found in ${ns} namespace.`])
      const namespace = await asUser("get", "namespace", ns, "-o", "name")
      expect([namespace.code, namespace.stdout.trim()]).toEqual([0, `namespace/${ns}`])
    }, 240_000)

    it("a binding in either group, its roleRef.apiGroup in either spelling, grants the role of the other group", async () => {
      const other = `${ns}-mixed`
      expect((await asAdmin("create", "namespace", other)).code).toBe(0)
      const file = path.join(server.pki.dir, `${other}.yaml`)
      writeFileSync(
        file,
        [
          // the role in the spec's group, bound from upstream's group by upstream's roleRef name
          { apiVersion: "rbac.authorization.platform/v1", kind: "Role", metadata: { name: "cm-reader", namespace: other }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["list"] }] },
          {
            apiVersion: "rbac.authorization.k8s.io/v1",
            kind: "RoleBinding",
            metadata: { name: "read-cms", namespace: other },
            roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "cm-reader" },
            subjects: [{ kind: "User", name: user }]
          },
          // the role in upstream's group, bound from the spec's group by the spec's roleRef name
          { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "secret-reader", namespace: other }, rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["list"] }] },
          {
            apiVersion: "rbac.authorization.platform/v1",
            kind: "RoleBinding",
            metadata: { name: "read-secrets", namespace: other },
            roleRef: { apiGroup: "rbac.authorization.platform", kind: "Role", name: "secret-reader" },
            subjects: [{ kind: "User", name: user }]
          }
        ]
          .map((d) => stringify(d))
          .join("---\n")
      )
      const applied = await asAdmin("apply", "-f", file)
      expect([applied.code, applied.stderr]).toEqual([0, ""])
      expect((await asUser("auth", "can-i", "list", "configmaps", "-n", other)).stdout.trim()).toBe("yes")
      expect((await asUser("auth", "can-i", "list", "secrets", "-n", other)).stdout.trim()).toBe("yes")
      expect((await asUser("auth", "can-i", "list", "pods", "-n", other)).stdout.trim()).toBe("no")
    }, 240_000)
  })
})
