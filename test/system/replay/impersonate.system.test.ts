/**
 * `clustersim replay --impersonate` against `serve --authorization-mode RBAC --token-auth-file … --anonymous-auth
 * false` that audits: a log of two users replays as those users — the target's audit log shows the replayer as the
 * requester and the recorded user as `impersonatedUser`, RBAC decided as the recorded user (bob may not delete) — and
 * a replayer without the `impersonate` grant gets upstream's 403 on every request, reported as mismatches, exit 99.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { auditEvent, type EventSpec, lines } from "../../replay/auditEvents.js"
import { auditEvents, cli, replayReportOf, requestsOf, serve, type Served, stop, writePolicy } from "./processes.js"

const dir = mkdtempSync(join(tmpdir(), "replay-impersonate-"))
const targetLog = join(dir, "target.log")
const tokens = join(dir, "tokens.csv")
writeFileSync(tokens, ['admin-token,admin,1,"system:masters"', "replayer-token,replayer,2", "plain-token,plain-replayer,3", ""].join("\n"))

const ref = (name?: string) => ({ resource: "configmaps", namespace: "team", apiVersion: "v1", ...(name ? { name } : {}) })
const cm = (data: Record<string, string>) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "shared", namespace: "team" }, data })
const alice = { user: "alice", groups: ["devs", "system:authenticated"] }
const bob = { user: "bob", groups: ["system:authenticated"] }

/** alice creates and reads, bob reads, patches and is refused a delete (he may not delete), alice deletes. */
const session: Array<EventSpec> = [
  { ...alice, at: 0, verb: "create", uri: "/api/v1/namespaces/team/configmaps?fieldManager=kubectl-create", code: 201, ref: ref("shared"), requestObject: cm({ a: "1" }) },
  { ...bob, at: 100, verb: "get", uri: "/api/v1/namespaces/team/configmaps/shared", code: 200, ref: ref("shared") },
  { ...bob, at: 200, verb: "patch", uri: "/api/v1/namespaces/team/configmaps/shared?fieldManager=kubectl-patch", code: 200, ref: ref("shared"), requestObject: { data: { b: "2" } } },
  { ...bob, at: 300, verb: "delete", uri: "/api/v1/namespaces/team/configmaps/shared", code: 403, ref: ref("shared") },
  { ...alice, at: 400, verb: "list", uri: "/api/v1/namespaces/team/configmaps?limit=500", code: 200, ref: ref() },
  { ...alice, at: 500, verb: "delete", uri: "/api/v1/namespaces/team/configmaps/shared", code: 200, ref: ref("shared") }
]
const log = join(dir, "two-users.log")
writeFileSync(log, lines(session.map(auditEvent)))

let target: Served | undefined

const asAdmin = async (method: string, path: string, body: unknown) => {
  const res = await fetch(`${target!.url}${path}`, { method, headers: { authorization: "Bearer admin-token", "content-type": "application/json" }, body: JSON.stringify(body) })
  expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBe(201)
}
const clusterRole = (name: string, rules: Array<unknown>) => asAdmin("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name }, rules })
const bind = (role: string, subject: { kind: "User" | "Group"; name: string }) =>
  asAdmin("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: `${role}-${subject.name}` },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", ...subject }]
  })

beforeAll(async () => {
  target = await serve([
    "--authorization-mode",
    "RBAC",
    "--anonymous-auth",
    "false",
    "--token-auth-file",
    tokens,
    "--audit-log-path",
    targetLog,
    "--audit-policy-file",
    writePolicy(join(dir, "policy.yaml"), "Metadata")
  ])
  // both replayers may seed (create namespaces) and use config maps themselves; only "replayer" may impersonate
  const seeding = { apiGroups: [""], resources: ["namespaces", "configmaps"], verbs: ["*"] }
  await clusterRole("replayer", [seeding, { apiGroups: [""], resources: ["users", "groups"], verbs: ["impersonate"] }])
  await clusterRole("replayer-without-impersonate", [seeding])
  await bind("replayer", { kind: "User", name: "replayer" })
  await bind("replayer-without-impersonate", { kind: "User", name: "plain-replayer" })
  // the recorded users' rights: devs (alice) everything on config maps, bob all but delete
  await clusterRole("cm-all", [{ apiGroups: [""], resources: ["configmaps"], verbs: ["*"] }])
  await clusterRole("cm-no-delete", [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "watch", "create", "update", "patch"] }])
  await bind("cm-all", { kind: "Group", name: "devs" })
  await bind("cm-no-delete", { kind: "User", name: "bob" })
}, 60_000)

afterAll(() => stop(target))

/** The target's audit events of config maps in namespace `ns`: requester, the user it ran as, verb, code. */
const configMapRequests = (ns: string) =>
  requestsOf(auditEvents(targetLog))
    .filter((e) => e.objectRef?.resource === "configmaps" && e.objectRef?.namespace === ns)
    .map((e) => [e.user.username, e.impersonatedUser?.username ?? "-", e.verb, e.responseStatus.code])

describe("clustersim replay --impersonate", () => {
  it("sends each request as its recorded user: the target's audit log has them as impersonatedUser, RBAC decides as them", async () => {
    const out = join(dir, "impersonated")
    const r = await cli(["replay", "--target", target!.url, "--token", "replayer-token", "--impersonate", "--namespace-prefix", "i1", "--out", out, log])
    const rep = replayReportOf(out)
    expect(rep.mismatches, r.stdout).toEqual([])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(rep.requests).toMatchObject({ sent: 6, matched: 6, mismatched: 0 })
    expect(configMapRequests("i1-team")).toEqual([
      ["replayer", "alice", "create", 201],
      ["replayer", "bob", "get", 200],
      ["replayer", "bob", "patch", 200],
      ["replayer", "bob", "delete", 403],
      ["replayer", "alice", "list", 200],
      ["replayer", "alice", "delete", 200]
    ])
    // the impersonated groups went along: alice's rights are her group's
    const create = auditEvents(targetLog).find((e) => e.verb === "create" && e.objectRef?.namespace === "i1-team")!
    expect(create.impersonatedUser).toEqual({ username: "alice", groups: ["devs", "system:authenticated"] })
  }, 60_000)

  it("without the impersonate grant every request is upstream's 403, reported as a mismatch, and the run fails", async () => {
    const out = join(dir, "refused")
    const r = await cli(["replay", "--target", target!.url, "--token", "plain-token", "--impersonate", "--namespace-prefix", "i2", "--out", out, log])
    expect(r.code, r.stdout + r.stderr).toBe(99)
    const rep = replayReportOf(out)
    // seeding is the replayer's own (it may create namespaces): only the impersonated requests are refused
    expect(rep.seeding).toMatchObject({ namespaces: 1, failed: 0 })
    expect(rep.requests).toMatchObject({ sent: 6, matched: 1, mismatched: 5 })
    // bob's refused delete was a 403 when recorded too: the one that matches
    expect(rep.mismatches.map((m) => [m.recorded, m.replayed, m.count])).toEqual([
      [200, 403, 4],
      [201, 403, 1]
    ])
    const aliceRefused = rep.mismatches.find((m) => m.recorded === 201)!.examples[0]!
    expect(aliceRefused.message).toBe('users "alice" is forbidden: User "plain-replayer" cannot impersonate resource "users" in API group "" at the cluster scope')
    expect(r.stdout).toContain("recorded 201 → replayed 403: 1×")
    expect(r.stdout).toMatch(/✗ outcome:replay-matches \[phase=replay,name=replay\]: failed replayed requests == 0 \(observed 5\)/)
    // nothing was done as anyone: the target refused before the request ran
    const refused = configMapRequests("i2-team")
    expect(refused).toHaveLength(6)
    expect(refused.every(([requester, as, , code]) => requester === "plain-replayer" && as === "-" && code === 403)).toBe(true)
  }, 60_000)
})
