/**
 * The shipped `scenarios/expired-token.yaml`, end to end in real time: on the embedded server (the generator's
 * TokenRequest plugin modelled in-process), and against a `serve --tls --admin`-style server over HTTPS with a
 * kubeconfig whose user is a real exec plugin (a child process asking for TokenRequest tokens with the admin
 * certificate). Real time on a shared machine: the figures are checked for what must hold, not for their values.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { ApiServer } from "../../../simulator/apiserver/ApiServer.js"
import { generatePki } from "../../../simulator/apiserver/auth/Certificates.js"
import { serveHttp } from "../../../simulator/apiserver/HttpServer.js"
import { Namespaces, ServiceAccounts } from "../../../src/api/Resources.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { runCommand } from "../../../app/cli/run.js"
import { resolveTarget } from "../../../app/cli/target.js"
import type { RunArtifact } from "../../../src/loadgen/Artifact.js"

const dir = mkdtempSync(path.join(os.tmpdir(), "clustersim-expired-token-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const scenario = fileURLToPath(new URL("../../../scenarios/expired-token.yaml", import.meta.url))
const plugin = fileURLToPath(new URL("../../support/tokenRequestPlugin.mjs", import.meta.url))

/** What must hold after the rotation, whatever the machine's speed. */
const checkRecovery = (artifact: RunArtifact) => {
  const tokens = (phase: string, action: string) => artifact.actions.find((a) => a.phase === phase && a.action === action)?.tokens
  // The actions share the generator's client, as the components of one Go process share a credential: the first
  // 401 has the plugin fetch a new token for all, so which clients see a 401 is a race (a dropped watch relisting
  // at once often wins it). At least one is refused; every refused one recovers.
  const rotation = ["writers", "readers", "informers"].map((client) => ({ client, t: tokens("rotation", client)! }))
  expect(rotation.reduce((n, { t }) => n + t.unauthorized, 0)).toBeGreaterThanOrEqual(1)
  for (const { client, t } of rotation) if (t.unauthorized > 0) expect(t.recoveredMs, `rotation/${client}`).toBeGreaterThan(0)
  const informers = tokens("rotation", "informers")!
  if (informers.unauthorized > 0) expect(informers.recoveredMs).toBeGreaterThan(0)
  // a writer loses what was refused; informers retry and lose nothing
  expect(tokens("rotation", "writers")?.lost).toBe(tokens("rotation", "writers")?.unauthorized)
  expect(tokens("rotation", "informers")?.lost).toBe(0)
  // the informers' watches carry on through a client-side expiry: not affected
  expect(tokens("stale", "writers")?.recoveredMs).toBeGreaterThan(0)
  expect(tokens("stale", "informers")).toEqual({ unauthorized: 0, lost: 0 })
  expect(artifact.actions.find((a) => a.phase === "rotation" && a.action === "expire")?.counts).toMatchObject({ expiredTokens: 1, droppedWatches: 5 })
  expect(artifact.actions.find((a) => a.phase === "stale" && a.action === "expire")?.counts).toEqual({ credentialsExpired: 1 })
  expect(artifact.thresholds.filter((t) => t.threshold.includes("token_recovery")).map((t) => t.threshold)).toContain("errors{metric:token_recovery}")
}

describe("scenarios/expired-token.yaml", () => {
  it.live(
    "on the embedded server: every affected client recovers; the summary lists them",
    () =>
      Effect.gen(function* () {
        let out = ""
        const result = yield* runCommand({ file: scenario, target: { _tag: "embedded" }, outDir: path.join(dir, "embedded"), stdout: (s) => void (out += s), stderr: () => {}, tty: false })
        expect(result.artifact).toBeDefined()
        checkRecovery(result.artifact!)
        expect(out).toContain("expired tokens (times from the expiry):")
        expect(out).toContain("stale/informers: no 401 (not affected)")
      }),
    120_000
  )

  it.live(
    "against serve --tls --admin over HTTPS with an exec plugin that requests TokenRequest tokens",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const pki = yield* generatePki(path.join(dir, "pki"), "127.0.0.1")
          const server = yield* serveHttp({ host: "127.0.0.1", port: 0, admin: true, tls: pki.tls })
          // the service account the plugin asks tokens for, made with the admin certificate
          const admin = Context.get(
            yield* Layer.build(
              ApiClient.layerHttp({
                baseUrl: server.url,
                tls: { ca: readFileSync(pki.caFile, "utf8"), cert: readFileSync(pki.adminCertFile, "utf8"), key: readFileSync(pki.adminKeyFile, "utf8") }
              })
            ),
            ApiClient
          )
          yield* Effect.catchAll(admin.create(Namespaces, { metadata: { name: "loadgen" } }), () => Effect.void)
          yield* admin.create(ServiceAccounts, { metadata: { name: "generator" } }, { namespace: "loadgen" })
          const runs = path.join(dir, "plugin-runs")
          appendFileSync(runs, "")
          const env = { SERVER: server.url, CA_FILE: pki.caFile, CERT_FILE: pki.adminCertFile, KEY_FILE: pki.adminKeyFile, SA_NAMESPACE: "loadgen", SA_NAME: "generator", RUNS_FILE: runs }
          const kubeconfig = path.join(dir, "exec-kubeconfig.yaml")
          writeFileSync(
            kubeconfig,
            JSON.stringify({
              apiVersion: "v1",
              kind: "Config",
              "current-context": "tls",
              clusters: [{ name: "tls", cluster: { server: server.url, "certificate-authority": pki.caFile } }],
              users: [
                {
                  name: "generator",
                  user: {
                    exec: {
                      apiVersion: "client.authentication.k8s.io/v1",
                      command: process.execPath,
                      args: [plugin],
                      env: Object.entries(env).map(([name, value]) => ({ name, value })),
                      interactiveMode: "Never"
                    }
                  }
                }
              ],
              contexts: [{ name: "tls", context: { cluster: "tls", user: "generator" } }]
            })
          )
          const target = yield* resolveTarget({ kubeconfig })
          const result = yield* runCommand({ file: scenario, target, outDir: path.join(dir, "tls"), stdout: () => {}, stderr: () => {}, tty: false })
          expect(result.artifact?.target).toMatchObject({ kind: "url", url: server.url, context: "tls" })
          checkRecovery(result.artifact!)
          // once at the start (the probes), once per rotation: a 401 runs the plugin once, not once per request
          expect(readFileSync(runs, "utf8").split("\n").filter(Boolean).length).toBe(3)
        })
      ).pipe(Effect.provide(ApiServer.layer({ seed: 5 }))),
    120_000
  )
})
