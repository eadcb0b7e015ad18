/**
 * `serve --tls --kubeconfig-auth token` (app/cli/serveTokenKubeconfig.ts): the service account and its binding, a
 * token the server authenticates, the plugin and a kubeconfig whose user is that plugin — in process, on a server
 * that authorizes with RBAC. The whole of it with `serve` and `run` as processes: test/system/cli/failFast.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parse } from "yaml"
import { writeTokenKubeconfig } from "../../app/cli/serveTokenKubeconfig.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { ClusterRoleBindings, Namespaces } from "../../src/api/Resources.js"
import { credentialMismatch } from "../../app/cli/preflight.js"
import { loadKubeconfig } from "../../src/client/Kubeconfig.js"
import { serverAnswer } from "../support/serverAnswer.js"

describe("serve --tls --kubeconfig-auth token", () => {
  it.effect("a service account bound to cluster-admin, a token the server takes, an exec-plugin kubeconfig", () =>
    Effect.gen(function* () {
      const server = yield* ApiServer
      const dir = mkdtempSync(join(tmpdir(), "clustersim-token-kubeconfig-"))
      const pki = { dir, caFile: join(dir, "ca.crt"), certFile: "", keyFile: "", adminCertFile: join(dir, "admin.crt"), adminKeyFile: join(dir, "admin.key"), tls: { cert: "", key: "" } }
      const url = "https://127.0.0.1:6443"
      writeFileSync(pki.caFile, "CA PEM")
      const written = yield* writeTokenKubeconfig(server, url, pki)
      expect(written).toEqual({
        kubeconfig: join(dir, "kubeconfig"),
        tokenFile: join(dir, "token"),
        plugin: join(dir, "token-plugin.mjs"),
        serviceAccount: "default/clustersim-loadgen"
      })
      for (const f of [written.kubeconfig, written.tokenFile, written.plugin]) expect(statSync(f).mode & 0o777).toBe(0o600)
      // the token authenticates as the account, which RBAC lets list namespaces (cluster-admin); a forged one is 401
      const token = readFileSync(written.tokenFile, "utf8").trim()
      const asAccount = inProcessClient(server, { authorization: `Bearer ${token}` })
      expect((yield* asAccount.list(Namespaces)).items.map((n) => n.metadata.name)).toContain("default")
      expect((yield* serverAnswer(inProcessClient(server, { authorization: `Bearer ${token}x` }).list(Namespaces))).code).toBe(401)
      const binding = yield* inProcessClient(server, { authorization: `Bearer ${token}` }).get(ClusterRoleBindings, "clustersim-loadgen")
      expect(binding).toMatchObject({ roleRef: { kind: "ClusterRole", name: "cluster-admin" }, subjects: [{ kind: "ServiceAccount", name: "clustersim-loadgen", namespace: "default" }] })
      // the kubeconfig: the CA, and a user that is the plugin run with this node
      expect(parse(readFileSync(written.kubeconfig, "utf8")).users[0].user.exec).toEqual({
        apiVersion: "client.authentication.k8s.io/v1",
        command: process.execPath,
        args: [written.plugin],
        interactiveMode: "Never"
      })
      const plugin = readFileSync(written.plugin, "utf8")
      expect(plugin).toContain(JSON.stringify("/api/v1/namespaces/default/serviceaccounts/clustersim-loadgen/token"))
      expect(plugin).toContain(JSON.stringify(url))
      // a client loading it gets an exec source: what expire-tokens needs (app/cli/preflight.ts)
      const options = yield* loadKubeconfig(written.kubeconfig)
      expect(options.exec?.config.command).toBe(process.execPath)
      expect(credentialMismatch({ phases: [{ name: "p", actions: [{ type: "expire-tokens", at: "1s" }] }] } as never, { _tag: "url", options })).toBeUndefined()
      // written twice (serve restarted on the same --cert-dir): the objects exist already, no error
      yield* writeTokenKubeconfig(server, url, pki)
    }).pipe(Effect.provide(ApiServer.layer({ authorizationMode: "RBAC", authentication: { anonymous: false, tokens: new Map() } }))))
})
