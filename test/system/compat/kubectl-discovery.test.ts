/**
 * Every kubectl on the machine (issue 40): discovery in one aggregated request per root (`/api`, `/apis`, seen at
 * `-v=6`) instead of one per group version (`kubectl auth whoami` is in auth.test.ts, where users have names).
 * Fails when no kubectl is installed.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { findKubectls, run, startServer } from "./support/clients.js"

const kubectls = findKubectls()
let server: { url: string; close: () => Promise<void> } | undefined
const cacheRoot = mkdtempSync(join(tmpdir(), "clustersim-discovery-"))

beforeAll(async () => {
  server = await startServer()
}, 60_000)

afterAll(async () => {
  await server?.close()
  rmSync(cacheRoot, { recursive: true, force: true })
})

const kubectl = (path: string, version: string, args: ReadonlyArray<string>) =>
  run(path, ["--server", server!.url, "--cache-dir", join(cacheRoot, version), ...args])

/** The URLs kubectl's `-v=6` log shows it requested (both log formats: 1.27's and 1.30+'s structured one). */
const requested = (stderr: string): ReadonlyArray<string> =>
  [...stderr.matchAll(/(?:GET (\S+) \d{3}|verb="GET" url="([^"]+)")/g)].map((m) => new URL(m[1] ?? m[2]!).pathname)

describe("kubectl discovery against clustersim", () => {
  it("is installed (the suite fails without one)", () => {
    expect(kubectls.length).toBeGreaterThan(0)
  })

  for (const k of kubectls) {
    it(`kubectl ${k.version}: a cold discovery asks /api and /apis only, then the resource`, async () => {
      const got = await kubectl(k.path, k.version, ["get", "deployments", "-v=6"])
      expect(got.stdout + got.stderr).toContain("No resources found in default namespace.")
      expect(requested(got.stderr)).toEqual(["/api", "/apis", "/apis/apps/v1/namespaces/default/deployments"])
    }, 60_000)

  }
})
