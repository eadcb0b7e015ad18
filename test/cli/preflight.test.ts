/**
 * What a run checks of its target before the first phase (app/cli/preflight.ts): a scenario that expires tokens
 * against credentials that cannot be fetched again is refused (exit 2) before anything is sent; an unreachable
 * target ends the run at once (exit 1).
 */
import { Effect, Either } from "effect"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { credentialMismatch, preflight } from "../../app/cli/preflight.js"
import { runCommand } from "../../app/cli/run.js"
import type { TargetFlag } from "../../app/cli/target.js"
import { parseScenario } from "../../app/scenario/load.js"
import { closedPort } from "../support/unreachable.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-preflight-"))
const expiredToken = fileURLToPath(new URL("../../scenarios/expired-token.yaml", import.meta.url))
const quickstart = fileURLToPath(new URL("../../scenarios/quickstart.yaml", import.meta.url))
const scenarioOf = (file: string) => Either.getOrThrow(parseScenario(readFileSync(file, "utf8"), file)).scenario

const steps = "phases[0].actions[3] (expire-tokens side: server), phases[1].actions[2] (expire-tokens side: client)"
const needs =
  "expiring tokens needs a client whose token can expire and be fetched again — an exec credential plugin " +
  "(`clustersim serve --tls --kubeconfig-auth token` writes such a kubeconfig) or a token file"
const url = (options: Omit<Extract<TargetFlag, { _tag: "url" }>["options"], "baseUrl">, context?: string): TargetFlag => ({
  _tag: "url",
  options: { baseUrl: "https://127.0.0.1:6443", ...options },
  ...(context !== undefined ? { context, from: "--kubeconfig" } : {})
})
const exec = { config: { command: "kubectl", args: [], env: [], apiVersion: "client.authentication.k8s.io/v1", interactiveMode: "Never", provideClusterInfo: false } } as const

describe("credentialMismatch", () => {
  const scenario = scenarioOf(expiredToken)

  it("refuses, naming the steps, what they need and what the target's user has: a client certificate, a static token, nothing", () => {
    expect(credentialMismatch(scenario, url({ tls: { ca: "CA", cert: "CERT", key: "KEY" } }, "clustersim"))).toBe(
      `${steps}: ${needs}; the target's user (context clustersim from --kubeconfig) authenticates with a client certificate, which has no token to expire or fetch again`
    )
    expect(credentialMismatch(scenario, url({ token: "t" }))).toBe(
      `${steps}: ${needs}; the target's user (--target and its flags) authenticates with a static bearer token (kubeconfig token or --token), which client-go never fetches again`
    )
    expect(credentialMismatch(scenario, url({}))).toBe(`${steps}: ${needs}; the target's user (--target and its flags) authenticates with no credentials (anonymous requests)`)
    // client-go ignores an exec plugin beside a client certificate (ClientCredentials.ts): still a certificate
    expect(credentialMismatch(scenario, url({ exec, tls: { cert: "CERT", key: "KEY" } }))).toContain("authenticates with a client certificate")
  })

  it("accepts an exec plugin or a token file; simulated targets issue their own tokens; other scenarios need nothing", () => {
    expect(credentialMismatch(scenario, url({ exec }))).toBeUndefined()
    expect(credentialMismatch(scenario, url({ tokenFile: "/tmp/token" }))).toBeUndefined()
    expect(credentialMismatch(scenario, { _tag: "embedded" })).toBeUndefined()
    expect(credentialMismatch(scenario, { _tag: "in-process" })).toBeUndefined()
    expect(credentialMismatch(scenarioOf(quickstart), url({ tls: { cert: "CERT", key: "KEY" } }))).toBeUndefined()
  })

  it.live("the mismatch is said before the target is asked (exit 2 even when nothing listens); the probe next (exit 1)", () =>
    Effect.gen(function* () {
      const port = yield* Effect.promise(closedPort)
      const at = `http://127.0.0.1:${port}`
      expect(yield* preflight(scenario, { _tag: "url", options: { baseUrl: at, token: "t" } })).toMatchObject({ exitCode: 2 })
      expect(yield* preflight(scenario, { _tag: "url", options: { baseUrl: at, exec } })).toEqual({ exitCode: 1, message: `cannot reach the target: connection refused: ${at}` })
    }))
})

describe("clustersim run: refused up front", () => {
  it.live("expired-token.yaml with a client-certificate kubeconfig: exit 2 at once, the file named, no artifact", () =>
    Effect.gen(function* () {
      const stderr: Array<string> = []
      const outDir = join(dir, "cert")
      const r = yield* runCommand({
        file: expiredToken,
        target: url({ tls: { ca: "CA", cert: "CERT", key: "KEY" } }, "clustersim"),
        outDir,
        tty: false,
        stdout: () => {},
        stderr: (s) => void stderr.push(s)
      })
      expect(r.exitCode).toBe(2)
      expect(stderr.join("")).toBe(
        `clustersim: ${expiredToken}: ${steps}: ${needs}; the target's user (context clustersim from --kubeconfig) authenticates with a client certificate, which has no token to expire or fetch again\n`
      )
      expect(existsSync(join(outDir, "run.json"))).toBe(false)
    }))
})
