/**
 * compare's per-side target flags through the real command line: an empty value (`--ca ""`, `--ca=`) leaves the flag
 * unset for its side (docs/compare.md "Sides"); @effect/cli alone drops it and gives the one value to every side.
 * The targets listen nowhere: each command line ends at the first side's reachability check (exit 1), after the
 * sides are listed.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { main } from "../../app/cli/main.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-compare-sides-"))
const scenario = join(dir, "s.yaml")
writeFileSync(scenario, "apiVersion: clustersim/v1\nkind: Scenario\nmetadata: { name: sides }\nphases:\n  - name: p\n    duration: 100ms\n    actions:\n      - { type: constant-arrival-rate, name: get, rate: 10, request: { verb: list, resource: configmaps, namespace: default } }\n")
const ca = join(dir, "ca.crt")
writeFileSync(ca, "not a certificate: never used, side A is checked first and is down\n")
const kubeconfig = join(dir, "k.yaml")
writeFileSync(
  kubeconfig,
  "apiVersion: v1\nkind: Config\ncurrent-context: b\nclusters: [{ name: b, cluster: { server: 'https://127.0.0.1:17602', insecure-skip-tls-verify: true } }]\nusers: [{ name: b, user: { token: t } }]\ncontexts: [{ name: b, context: { cluster: b, user: b } }]\n"
)
const a = "http://127.0.0.1:17601"
const b = "https://127.0.0.1:17602"

const stderrOf = async (args: ReadonlyArray<string>) => {
  const err: Array<string> = []
  vi.spyOn(process.stdout, "write").mockImplementation(() => true)
  vi.spyOn(process.stderr, "write").mockImplementation((s) => (err.push(String(s)), true))
  try {
    return { code: await main(["compare", scenario, ...args]), err: err.join("") }
  } finally {
    vi.restoreAllMocks()
  }
}
afterEach(() => void vi.restoreAllMocks())

const sidesListed = (bLine: string) => `A: target: ${a} (--target)\nB: target: ${bLine}\nclustersim compare: A (${a}): cannot reach the target: connection refused: ${a}\n`

describe("compare: an empty per-side value unsets the flag for that side", () => {
  it("--ca \"\" --ca FILE: side A (http) has no --ca, side B (https) has it", async () => {
    for (const flags of [["--ca", "", "--ca", ca], ["--ca=", `--ca=${ca}`], ["--certificate-authority", "", "--certificate-authority", ca]])
      expect(await stderrOf(["--target", a, "--target", b, ...flags])).toEqual({ code: 1, err: sidesListed(`${b} (--target)`) })
  })

  it("--client-cert / --client-key for side B only", async () => {
    expect(await stderrOf(["--target", a, "--target", b, "--client-cert", "", "--client-cert", ca, "--client-key", "", "--client-key", ca])).toEqual({
      code: 1,
      err: sidesListed(`${b} (--target)`)
    })
  })

  it("--target URL for side A, --kubeconfig FILE for side B (docs/compare.md's mixed sides)", async () => {
    expect(await stderrOf(["--target", a, "--target", "", "--kubeconfig", "", "--kubeconfig", kubeconfig])).toEqual({
      code: 1,
      err: sidesListed(`${b} (context b from --kubeconfig)`)
    })
  })

  it("--prometheus \"\" --prometheus URL: side A reads its target's /metrics, side B the Prometheus", async () => {
    expect(await stderrOf(["--target", a, "--target", b, "--prometheus", "", "--prometheus", "http://127.0.0.1:17603"])).toEqual({ code: 1, err: sidesListed(`${b} (--target)`) })
  })

  it("a value flag left without its value is still refused", async () => {
    expect((await stderrOf(["--target", a, "--target", b, "--ca"])).code).toBe(2)
  })
})
