/**
 * The in-pod client's token rotation end to end, in the test clock: a client built from `inClusterConfig`
 * (src/client/InClusterConfig.ts) against `serve`'s HTTPS with RBAC, its service-account token file replaced by a new
 * pod-bound token. client-go's cached file source re-reads the file after 50 s (src/client/auth/TokenFile.ts), so
 * requests go on with the old token until then and with the new one after — the server tells them apart by the pod
 * each is bound to — and deleting the old token's pod, which kills that token, costs the client nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, TestClock } from "effect"
import { mkdtempSync, renameSync, writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Namespaces, Pods, RoleBindings, SelfSubjectReviews, ServiceAccounts } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { inClusterConfig } from "../../src/client/InClusterConfig.js"
import { authServer, type Identity } from "../support/identities.js"

const admin: Identity = { user: "admin", groups: ["system:masters"] }

describe("in-cluster client, token file rotated", () => {
  it.scoped("old token until the 50 s re-read, the new one after; the old one revoked then costs no request", () =>
    Effect.gen(function* () {
      const s = yield* authServer("http", { authorizationMode: "RBAC", authentication: { anonymous: false, tokens: new Map() } })
      const root = yield* s.clientAs(admin)
      const ns = { namespace: "loadtest" }
      yield* root.create(Namespaces, { metadata: { name: "loadtest" } })
      yield* root.create(ServiceAccounts, { metadata: { name: "load" } }, ns)
      yield* root.create(
        RoleBindings,
        { metadata: { name: "load-view" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" }, subjects: [{ kind: "ServiceAccount", name: "load", namespace: "loadtest" }] },
        ns
      )
      const podToken = (pod: string) =>
        Effect.gen(function* () {
          const created = yield* root.create(Pods, { metadata: { name: pod }, spec: { serviceAccountName: "load", containers: [{ name: "c", image: "i" }] } }, ns)
          const issued = yield* root.create(ServiceAccounts, { metadata: { name: "load" }, spec: { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: pod, uid: created.object.metadata.uid } } }, { ...ns, subresource: "token" })
          return (issued.object.status as { token: string }).token
        })

      const dir = mkdtempSync(join(tmpdir(), "clustersim-sa-"))
      writeFileSync(join(dir, "token"), yield* podToken("load-0-old"))
      writeFileSync(join(dir, "ca.crt"), s.ca!)
      writeFileSync(join(dir, "namespace"), "loadtest")
      const { hostname, port } = new URL(s.url!)
      const config = yield* inClusterConfig({
        env: { KUBERNETES_SERVICE_HOST: hostname, KUBERNETES_SERVICE_PORT: port, CLUSTERSIM_SERVICEACCOUNT_DIR: dir },
        read: (p) => readFile(p, "utf8")
      })
      const pod = Context.get(yield* Layer.build(ApiClient.layerHttp(config.options)), ApiClient)
      /** The pod the server says the request's token is bound to. */
      const boundTo = Effect.map(pod.create(SelfSubjectReviews, {}), (r) => (r.object.status as { userInfo: { extra: Record<string, ReadonlyArray<string>> } }).userInfo.extra["authentication.platform.io/pod-name"])

      expect(yield* boundTo).toEqual(["load-0-old"])
      // kubelet writes the new token beside the old and renames it over
      writeFileSync(join(dir, "token.new"), yield* podToken("load-0-new"))
      renameSync(join(dir, "token.new"), join(dir, "token"))
      yield* TestClock.adjust("49 seconds")
      expect(yield* boundTo).toEqual(["load-0-old"])
      yield* TestClock.adjust("1 second")
      expect(yield* boundTo).toEqual(["load-0-new"])
      // the old token revoked: its pod deleted
      yield* root.delete(Pods, "load-0-old", ns)
      expect((yield* pod.list(Pods, ns)).items.map((p) => p.metadata.name)).toEqual(["load-0-new"])
      expect(yield* boundTo).toEqual(["load-0-new"])
    }))
})
