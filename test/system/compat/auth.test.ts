/**
 * Stock clients against `serve --tls` with RBAC: every kubectl with the generated admin client certificate and with
 * a bearer token (`auth can-i`, `auth can-i --list`, `auth whoami`, `create role/rolebinding/clusterrolebinding`,
 * `create token`, upstream's 403 text), and the Python client with a token.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { compatDir, findKubectls, python, run, startTlsRbacServer, type TlsRbacServer } from "./support/clients.js"

const kubectls = findKubectls()
const tokenOf = (version: string) => `tok-${version}`
const userOf = (version: string) => `user-${version.replace(".", "-")}`
const tokens = new Map([...kubectls.map((k) => [tokenOf(k.version), { name: userOf(k.version), uid: k.version, groups: [] }] as const), ["tok-py", { name: "py", uid: "py", groups: [] }]])

let server: TlsRbacServer

beforeAll(async () => {
  server = await startTlsRbacServer("clustersim-compat-auth-", tokens)
}, 60_000)

afterAll(() => server.close())

describe("kubectl over serve --tls with RBAC", () => {
  describe.concurrent.each(kubectls)("kubectl $version", ({ path: bin, version }) => {
    const asAdmin = (...args: ReadonlyArray<string>) => run(bin, ["--kubeconfig", server.adminConfig, ...args])
    const asUser = (...args: ReadonlyArray<string>) => run(bin, ["--server", server.url, "--certificate-authority", server.pki.caFile, "--token", tokenOf(version), ...args])
    const ns = `ns-${version.replace(".", "-")}`

    it("client certificate (system:masters): can-i yes, --list shows everything", async () => {
      expect((await asAdmin("auth", "can-i", "create", "roles")).stdout.trim()).toBe("yes")
      const list = await asAdmin("auth", "can-i", "--list")
      expect(list.code).toBe(0)
      expect(list.stdout).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m)
    }, 120_000)

    it("auth whoami: the token's user and the certificate's subject", async () => {
      const asToken = await asUser("auth", "whoami")
      expect(asToken.code).toBe(0)
      expect(asToken.stdout).toMatch(new RegExp(`^ATTRIBUTE +VALUE\nUsername +${userOf(version)}\nUID +${version.replace(".", "\\.")}\nGroups +\\[system:authenticated\\]\n$`))
      const asJson = JSON.parse((await asAdmin("auth", "whoami", "-o", "json")).stdout)
      expect(asJson.kind).toBe("SelfSubjectReview")
      expect(asJson.status.userInfo.groups).toContain("system:masters")
    }, 120_000)

    it("token: 403 in upstream's words, then create role/rolebinding grants exactly that", async () => {
      const user = userOf(version)
      expect((await asAdmin("create", "namespace", ns)).code).toBe(0)
      const denied = await asUser("get", "pods", "-n", ns)
      expect(denied.code).toBe(1)
      expect(denied.stderr.trim()).toBe(`Error from server (Forbidden): pods is forbidden: User "${user}" cannot list resource "pods" in API group "" in the namespace "${ns}"`)
      const no = await asUser("auth", "can-i", "list", "pods", "-n", ns)
      expect([no.code, no.stdout.trim()]).toEqual([1, "no"])
      const role = await asAdmin("create", "role", "pod-reader", "--verb=get,list", "--resource=pods", "-n", ns)
      expect(role.stdout.trim()).toBe("role.rbac.authorization.k8s.io/pod-reader created")
      const binding = await asAdmin("create", "rolebinding", "read-pods", "--role=pod-reader", `--user=${user}`, "-n", ns)
      expect(binding.stdout.trim()).toBe("rolebinding.rbac.authorization.k8s.io/read-pods created")
      const allowed = await asUser("get", "pods", "-n", ns)
      expect([allowed.code, allowed.stderr.trim()]).toEqual([0, `No resources found in ${ns} namespace.`])
      const yes = await asUser("auth", "can-i", "list", "pods", "-n", ns)
      expect([yes.code, yes.stdout.trim()]).toEqual([0, "yes"])
      expect((await asUser("auth", "can-i", "delete", "pods", "-n", ns)).stdout.trim()).toBe("no")
      const rules = await asUser("auth", "can-i", "--list", "-n", ns)
      expect(rules.stdout).toMatch(/^pods\s+\[\]\s+\[\]\s+\[get list\]$/m)
      expect((await asAdmin("auth", "can-i", "list", "pods", "-n", ns, "--as", user)).stdout.trim()).toBe("yes")
      expect((await asAdmin("auth", "can-i", "list", "nodes", "--as", user)).stdout.trim()).toBe("no")
    }, 180_000)

    it("--as and --as-group with non-ASCII names: kubectl's UTF-8 header bytes are the user it names", async () => {
      const denied = await asAdmin("get", "pods", "-n", "team", "--as=josé")
      expect(denied.stderr.trim()).toBe('Error from server (Forbidden): pods is forbidden: User "josé" cannot list resource "pods" in API group "" in the namespace "team"')
      const whoami = await asAdmin("auth", "whoami", "--as=josé", "--as-group=équipe", "-o", "json")
      expect(JSON.parse(whoami.stdout).status.userInfo).toEqual({ username: "josé", groups: ["équipe", "system:authenticated"] })
    }, 120_000)

    it("create role --verb=escalate: kubectl refuses roles mapped to the .platform group; naming the .k8s.io group works (docs/auth.md)", async () => {
      const mapped = await asAdmin("create", "role", "escalator", "--verb=escalate", "--resource=roles", "-n", "default")
      expect([mapped.code, mapped.stderr.trim()]).toEqual([1, "error: can not perform 'escalate' on 'roles' in group 'rbac.authorization.platform'"])
      const named = await asAdmin("create", "role", `escalator-${version.replace(".", "-")}`, "--verb=escalate", "--resource=roles.rbac.authorization.k8s.io", "-n", "default")
      expect([named.code, named.stdout.trim()]).toEqual([0, `role.rbac.authorization.k8s.io/escalator-${version.replace(".", "-")} created`])
    }, 120_000)

    it("create clusterrolebinding, service account and token", async () => {
      const crb = await asAdmin("create", "clusterrolebinding", `view-${version}`, "--clusterrole=view", `--user=${userOf(version)}-x`)
      expect(crb.stdout.trim()).toBe(`clusterrolebinding.rbac.authorization.k8s.io/view-${version} created`)
      const sa = `robot-${version.replace(".", "-")}`
      expect((await asAdmin("create", "serviceaccount", sa)).code).toBe(0)
      const token = await asAdmin("create", "token", sa)
      expect(token.stdout.trim()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
      const whoami = await run(bin, ["--server", server.url, "--certificate-authority", server.pki.caFile, "--token", token.stdout.trim(), "get", "nodes"])
      expect(whoami.stderr.trim()).toBe(`Error from server (Forbidden): nodes is forbidden: User "system:serviceaccount:default:${sa}" cannot list resource "nodes" in API group "" at the cluster scope`)
    }, 120_000)
  })
})

describe("python kubernetes client over HTTPS with a bearer token", () => {
  it("lists where bound, gets upstream's 403 elsewhere", async () => {
    const admin = (...args: ReadonlyArray<string>) => run(kubectls[0]!.path, ["--kubeconfig", server.adminConfig, ...args])
    expect((await admin("create", "rolebinding", "py-view", "--clusterrole=view", "--user=py", "-n", "default")).code).toBe(0)
    const ran = await run(python, [`${compatDir}python/checks.py`, server.url, "token", "tok-py", server.pki.caFile])
    expect(ran.stderr).toBe("")
    expect(JSON.parse(ran.stdout)).toEqual({
      listed: [],
      denied: [403, "Forbidden", 'pods is forbidden: User "py" cannot list resource "pods" in API group "" in the namespace "kube-system"']
    })
  }, 60_000)
})
