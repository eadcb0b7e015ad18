/**
 * `serve --nodes`, `--cluster`, `--demo`: what is refused before the server listens (exit 2, the flag named), and
 * the plan a scenario file's cluster section makes. The live cluster itself runs in the system tier
 * (test/system/compat/kubectl-live-cluster.test.ts).
 */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Either } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describePlan, nodesPlan, scenarioPlan } from "../../app/cli/serveCluster.js"
import { captureMain } from "../support/captureMain.js"

const capture = (args: ReadonlyArray<string>) => captureMain(args)

afterEach(() => void vi.restoreAllMocks())

const dir = mkdtempSync(join(tmpdir(), "clustersim-serve-live-"))
const scenario = (name: string, body: string) => {
  const file = join(dir, name)
  writeFileSync(file, `apiVersion: clustersim/v1\nkind: Scenario\nmetadata: { name: ${name.replace(".yaml", "")} }\nphases: []\n${body}`)
  return file
}

describe("serve's live cluster flags", () => {
  it.each([
    [["--nodes", "0"], "clustersim: --nodes: must be between 1 and 100000, got 0\n"],
    [["--nodes", "3", "--demo"], "clustersim: --demo and --nodes: give one of them\n"],
    [["--nodes", "3", "--cluster", "x.yaml"], "clustersim: --nodes and --cluster: give one of them\n"],
    [["--cluster", join(dir, "missing.yaml")], `clustersim: --cluster: cannot read ${join(dir, "missing.yaml")}: ENOENT: no such file or directory, open '${join(dir, "missing.yaml")}'\n`]
  ])("serve %j is refused before listening: exit 2", async (flags, message) => {
    const r = await capture(["serve", "--port", "0", ...flags])
    expect(r.code).toBe(2)
    expect(r.out).toBe("")
    expect(r.err).toBe(`${message}Run "clustersim help" for usage.\n`)
  })

  it("--cluster: a file without a cluster section, or with one real time cannot run, is refused with the reason", async () => {
    const none = scenario("none.yaml", "")
    const r = await capture(["serve", "--port", "0", "--cluster", none])
    expect([r.code, r.err]).toEqual([2, `clustersim: --cluster: ${none} has no "cluster" section\nRun "clustersim help" for usage.\n`])
    // image pulls are virtual time only, as `run --target` says
    expect(Either.getLeft(scenarioPlan("scenarios/registry-outage.yaml")).pipe((l) => l._tag === "Some" && l.value)).toMatch(
      /^--cluster: scenarios\/registry-outage\.yaml: cluster\.images: image pulls are modelled in virtual time only; run without --target; faults\[0\]: registry-outage needs cluster\.images \(virtual time only\)/
    )
  })

  it("--cluster takes the section and its faults; --nodes N is N nodes of 8 cores and 32 GiB started within 2 s", () => {
    const file = scenario("ok.yaml", "cluster:\n  nodes: 4\n  namePrefix: sim-\n  nodeLifecycle: { enabled: false }\nfaults:\n  - { type: stop-nodes, at: 30s, count: 1 }\n")
    const plan = Either.getOrThrow(scenarioPlan(file))
    expect(plan.spec).toMatchObject({ nodes: 4, namePrefix: "sim-", nodeLifecycle: { enabled: false } })
    expect(plan.faults).toEqual([{ type: "stop-nodes", at: 30_000, count: 1 }])
    expect(describePlan(plan)).toBe(
      `clustersim: live cluster (the cluster section of ${file}): 4 simulated nodes (node agents: registration, leases, pod start-up, container logs), scheduler, deployment, replicaset and service account controllers, garbage collector, events; each controller under leader election, 1 timed fault(s)`
    )
    expect(Either.getOrThrow(nodesPlan(20)).spec).toEqual({ nodes: 20, startSpread: 2_000, shape: { cpu: "8", memory: "32Gi" } })
  })
})
