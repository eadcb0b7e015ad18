/**
 * Fail fast, with the CLI in its own process (issue 37): a target nobody listens on ends `run` at once with exit 1
 * and `connection refused: URL` — also for a scenario with admin steps, which must not be told "no /clustersim/
 * admin endpoints"; expired-token.yaml with the client-certificate kubeconfig `serve --tls` writes is refused
 * before the run (exit 2); the token kubeconfig `serve --tls --kubeconfig-auth token` writes runs it, every
 * client recovering. The pieces in-process: test/cli/preflight.test.ts, test/client/TargetProbe.test.ts.
 *
 * The time bound is a behaviour bound, not a speed goal: from the CLI's first line (its target, printed once the
 * flags are parsed, after the modules are loaded) to its exit, under 2 s, where the run would have lasted an hour.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Agent, request } from "undici"
import type { RunArtifact } from "../../../src/loadgen/Artifact.js"
import { closedPort } from "../../support/unreachable.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-failfast-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const expiredToken = fileURLToPath(new URL("../../../scenarios/expired-token.yaml", import.meta.url))

const cli = (args: ReadonlyArray<string>) => spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", ...args], { stdio: ["ignore", "pipe", "pipe"] })

/** `run …` in its own process: exit code, output, and the time from its first stderr line (the target) to its exit. */
const run = (args: ReadonlyArray<string>): Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string; readonly afterTargetMs: number }> =>
  new Promise((resolve, reject) => {
    const child = cli(["run", ...args])
    let stdout = ""
    let stderr = ""
    let targetAt: number | undefined
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString()
      if (targetAt === undefined && stderr.startsWith("target: ")) targetAt = performance.now()
    })
    child.on("exit", (code) => resolve({ code, stdout, stderr, afterTargetMs: performance.now() - (targetAt ?? Number.NaN) }))
    child.on("error", reject)
  })

/** `serve --tls --port 0 …` in its own process until the test ends; its stdout lines once the kubeconfig is written. */
const serve = (args: ReadonlyArray<string>): Promise<{ readonly child: ChildProcess; readonly lines: ReadonlyArray<string> }> =>
  new Promise((resolve, reject) => {
    const child = cli(["serve", "--tls", "--port", "0", ...args])
    let stdout = ""
    let stderr = ""
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()))
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d.toString()
      const lines = stdout.split("\n")
      if (lines.some((l) => l.startsWith("kubeconfig")) && (!args.includes("token") || lines.some((l) => l.startsWith("token file")))) resolve({ child, lines })
    })
    child.on("exit", (code) => reject(new Error(`serve exited ${code}: ${stderr}`)))
    child.on("error", reject)
  })

const pathAfterColon = (lines: ReadonlyArray<string>, prefix: string): string => {
  const line = lines.find((l) => l.startsWith(prefix))!
  return line.slice(line.lastIndexOf(": ") + 2)
}

const stop = (child: ChildProcess) => {
  child.removeAllListeners("exit")
  child.kill("SIGTERM")
}

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
