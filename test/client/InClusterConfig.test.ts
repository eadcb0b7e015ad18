/**
 * The in-pod configuration (src/client/InClusterConfig.ts) as client-go's `rest.InClusterConfig` builds it, from the
 * files and variables a Job's container sees.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inClusterConfig, NotInCluster } from "../../src/client/InClusterConfig.js"

const read = (p: string) => readFile(p, "utf8")

describe("in-cluster configuration", () => {
  it.effect("the service host and port, the token file (re-read by the transport), the CA and the pod's namespace", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "sa-"))
      writeFileSync(join(dir, "token"), "tok-1\n")
      writeFileSync(join(dir, "ca.crt"), "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n")
      writeFileSync(join(dir, "namespace"), "loadtest")
      const env = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443", CLUSTERSIM_SERVICEACCOUNT_DIR: dir }
      const c = yield* inClusterConfig({ env, read })
      expect(c).toEqual({
        options: { baseUrl: "https://10.96.0.1:443", tokenFile: join(dir, "token"), tls: { ca: "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n" } },
        namespace: "loadtest",
        warnings: []
      })
      const v6 = yield* inClusterConfig({ env: { ...env, KUBERNETES_SERVICE_HOST: "fd00::1" }, read })
      expect(v6.options.baseUrl).toBe("https://[fd00::1]:443")
    })
  )

  it.effect("outside a pod, client-go's error; a missing token file is an error; a missing CA a warning", () =>
    Effect.gen(function* () {
      expect(yield* Effect.either(inClusterConfig({ env: { KUBERNETES_SERVICE_HOST: "10.0.0.1" }, read }))).toEqual(Either.left(NotInCluster))
      const dir = mkdtempSync(join(tmpdir(), "sa-"))
      const env = { KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "6443", CLUSTERSIM_SERVICEACCOUNT_DIR: dir }
      expect(yield* Effect.either(inClusterConfig({ env, read }))).toEqual(Either.left(`open ${join(dir, "token")}: no such file or directory`))
      writeFileSync(join(dir, "token"), "tok")
      const c = yield* inClusterConfig({ env, read })
      expect(c.options).toEqual({ baseUrl: "https://10.0.0.1:6443", tokenFile: join(dir, "token") })
      expect(c.warnings).toHaveLength(1)
      expect(c.warnings[0]).toMatch(new RegExp(`^Expected to load root CA config from ${join(dir, "ca.crt")}, but got err: `))
    })
  )
})
