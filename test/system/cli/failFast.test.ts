/**
 * Fail fast, with the CLI in its own process (issue 37): a target nobody listens on ends `run` at once with exit 1
 * and `connection refused: URL` — also for a scenario with admin steps, which must not be told "no /clustersim/
 * admin endpoints"; expired-token.yaml with the client-certificate kubeconfig `serve --tls` writes is refused
 * before the run (exit 2); the token kubeconfig `serve --tls --kubeconfig-auth token` writes runs it, every
 * client recovering (serveTokenKubeconfig.test.ts). The pieces in-process: test/cli/preflight.test.ts,
 * test/client/TargetProbe.test.ts.
 *
 * The time bound is a behaviour bound, not a speed goal: from the CLI's first line (its target, printed once the
 * flags are parsed, after the modules are loaded) to its exit, under 2 s, where the run would have lasted an hour.
 * So this file runs alone, after the other system files (vitest.config.ts, project system-alone): with other
 * system files beside it on a machine at load 28 the exit took 3–8 s.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { closedPort } from "../../support/unreachable.js"
import { pathAfterColon, run, serve, stop } from "./failFastProcesses.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-failfast-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const expiredToken = fileURLToPath(new URL("../../../scenarios/expired-token.yaml", import.meta.url))

describe("fail fast (own process)", () => {
  it("run --target http://127.0.0.1:<closed port>: exit 1 at once, `connection refused: URL` — with admin steps too, no 'no admin endpoints'", async () => {
    const port = await closedPort()
    const scenario = join(dir, "hour.yaml")
    writeFileSync(
      scenario,
      `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: hour }
phases:
  - name: p1
    duration: 1h
    actions:
      - { type: constant-arrival-rate, name: list, rate: 1, request: { verb: list, resource: configmaps, namespace: default } }
      - { type: compact, at: 1s }
`
    )
    const r = await run([scenario, "--target", `http://127.0.0.1:${port}`, "--out", join(dir, "hour")])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`target: http://127.0.0.1:${port} (--target)\nclustersim: cannot reach the target: connection refused: http://127.0.0.1:${port}\n`)
    expect(r.stdout).toBe("")
    expect(r.afterTargetMs).toBeLessThan(2000)
  }, 60_000)

  it("expired-token.yaml with the client-certificate kubeconfig serve --tls writes: exit 2 before the run, saying what it needs and what the kubeconfig has", async () => {
    const { child, lines } = await serve(["--admin", "--cert-dir", join(dir, "cert")])
    try {
      const kubeconfig = pathAfterColon(lines, "kubeconfig (admin client certificate)")
      const r = await run([expiredToken, "--kubeconfig", kubeconfig, "--out", join(dir, "cert-run")])
      expect(r.code).toBe(2)
      expect(r.stderr).toContain(
        `clustersim: ${expiredToken}: phases[0].actions[3] (expire-tokens side: server), phases[1].actions[2] (expire-tokens side: client): ` +
          "expiring tokens needs a client whose token can expire and be fetched again — an exec credential plugin (`clustersim serve --tls --kubeconfig-auth token` writes such a kubeconfig) or a token file; " +
          `the target's user (context clustersim from --kubeconfig) authenticates with a client certificate, which has no token to expire or fetch again\n`
      )
      expect(r.afterTargetMs).toBeLessThan(2000)
    } finally {
      stop(child)
    }
  }, 120_000)
})
