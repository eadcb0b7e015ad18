/**
 * The token kubeconfig `clustersim serve --tls --kubeconfig-auth token` writes, with the CLI in its own process
 * (issue 37): its token file authenticates (a token the server did not issue is refused 401), and it runs
 * scenarios/expired-token.yaml, every refused client recovering. The refusals before the run: failFast.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Agent, request } from "undici"
import type { RunArtifact } from "../../../src/loadgen/Artifact.js"
import { pathAfterColon, run, serve, stop } from "./failFastProcesses.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-token-kubeconfig-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const expiredToken = fileURLToPath(new URL("../../../scenarios/expired-token.yaml", import.meta.url))

describe("serve --tls --kubeconfig-auth token (own process)", () => {
  it("serve --tls --kubeconfig-auth token: its token file authenticates; its kubeconfig runs expired-token.yaml, every refused client recovering", async () => {
    const { child, lines } = await serve(["--admin", "--kubeconfig-auth", "token", "--cert-dir", join(dir, "token")])
    try {
      const kubeconfig = pathAfterColon(lines, "kubeconfig (service account default/clustersim-loadgen")
      const tokenFile = pathAfterColon(lines, "token file")
      const server = lines.find((l) => l.startsWith("clustersim API server listening on "))!.split(" ").pop()!
      // the token file: a bearer token the server authenticates (a token it did not issue is refused 401)
      const get = async (token: string) =>
        (
          await request(`${server}/api/v1/namespaces`, {
            dispatcher: new Agent({ connect: { ca: readFileSync(join(dir, "token", "ca.crt")) } }),
            headers: { authorization: `Bearer ${token}` }
          })
        ).statusCode
      const token = readFileSync(tokenFile, "utf8").trim()
      expect(await get(token)).toBe(200)
      expect(await get(token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA"))).toBe(401)
      const out = join(dir, "token-run")
      const r = await run([expiredToken, "--kubeconfig", kubeconfig, "--out", out])
      // thresholds hold recovery to bounds a loaded machine may miss (test/system/cli/expiredToken.test.ts): 0 or 99
      expect([0, 99]).toContain(r.code)
      const artifact = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as RunArtifact
      expect(artifact.target).toMatchObject({ kind: "url", url: server, context: "clustersim" })
      const tokens = (phase: string, action: string) => artifact.actions.find((a) => a.phase === phase && a.action === action)?.tokens
      const refused = ["rotation/writers", "rotation/readers", "rotation/informers", "stale/writers"].map((c) => tokens(c.split("/")[0]!, c.split("/")[1]!)!)
      expect(refused.reduce((n, t) => n + t.unauthorized, 0)).toBeGreaterThanOrEqual(1)
      for (const t of refused) if (t.unauthorized > 0) expect(t.recoveredMs).toBeGreaterThan(0)
      expect(tokens("stale", "writers")?.recoveredMs).toBeGreaterThan(0)
      expect(artifact.thresholds.find((t) => t.threshold === "errors{metric:token_recovery}")?.passed).toBe(true)
    } finally {
      stop(child)
    }
  }, 180_000)
})
