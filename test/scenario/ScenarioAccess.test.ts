/**
 * The least a Job's ServiceAccount needs (app/scenario/ScenarioAccess.ts): a load scenario's rules come from its
 * setup and actions, a real-time cluster's from what node agents, the lifecycle controller and the scheduler send;
 * `clustersim job` refuses what cannot run against a target, as `run --target` does.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { jobCommand } from "../../app/cli/jobCommand.js"
import { parseScenario } from "../../app/scenario/load.js"
import { scenarioAccess } from "../../app/scenario/ScenarioAccess.js"

const scenario = (text: string) => {
  const parsed = parseScenario(text, "test.yaml")
  if (Either.isLeft(parsed)) throw new Error(parsed.left.message)
  return parsed.right.scenario
}

const head = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: access }
seed: 1
`

describe("scenarioAccess", () => {
  it("a load scenario: its setup's creates and each action's verbs, upstream group names", () => {
    const s = scenario(`${head}setup:
  namespaces: [load]
  objects:
    - { name: cms, resource: configmaps, namespace: load, count: 2, template: { data: { k: v } } }
phases:
  - name: p
    duration: 5s
    actions:
      - { type: constant-arrival-rate, name: gets, rate: 10, maxInFlight: 10, request: { verb: get, objects: cms } }
      - { type: watch, name: w, resource: leases, count: 1 }
`)
    expect(scenarioAccess(s)).toEqual([
      { apiGroup: "", resource: "configmaps", verbs: ["create", "get"] },
      { apiGroup: "", resource: "namespaces", verbs: ["create"] },
      { apiGroup: "coordination.k8s.io", resource: "leases", verbs: ["watch"] }
    ])
  })

  it("a real-time cluster with a scheduler: nodes, leases, pods and their status, bindings, events — merged with the phases' own", () => {
    const s = scenario(`${head}duration: 30s
cluster: { nodes: 3 }
scheduler:
  replicas: 2
  batches: [{ namePrefix: web, at: 1s, count: 3, rate: 3, cpu: 100m, memory: 64Mi }]
phases:
  - name: p
    duration: 5s
    actions:
      - { type: informers, name: i, resource: pods, count: 1 }
`)
    expect(scenarioAccess(s)).toEqual([
      { apiGroup: "", resource: "nodes", verbs: ["create", "delete", "get", "list", "patch", "update", "watch"] },
      { apiGroup: "", resource: "nodes/status", verbs: ["patch", "update"] },
      { apiGroup: "", resource: "pods", verbs: ["create", "delete", "get", "list", "patch", "watch"] },
      { apiGroup: "", resource: "pods/binding", verbs: ["create"] },
      { apiGroup: "", resource: "pods/status", verbs: ["patch", "update"] },
      { apiGroup: "coordination.k8s.io", resource: "leases", verbs: ["create", "delete", "get", "list", "update", "watch"] },
      { apiGroup: "events.k8s.io", resource: "events", verbs: ["create", "list", "patch"] }
    ])
  })
})

describe("clustersim job and simulated sections", () => {
  const dir = mkdtempSync(join(tmpdir(), "clustersim-job-access-"))
  const job = (name: string, text: string) => {
    const file = join(dir, name)
    writeFileSync(file, text)
    let out = ""
    let err = ""
    const code = jobCommand({ file, segments: 2, image: "registry.example/clustersim:1.0", name: undefined, namespace: undefined, stdout: (s) => void (out += s), stderr: (s) => void (err += s) })
    return { code, out, err, file }
  }

  it("prints a real-time cluster's Job, its ClusterRole granting the cluster's requests", () => {
    const r = job("cluster.yaml", `${head}duration: 30s\ncluster: { nodes: 3 }\nphases: []\n`)
    expect([r.code, r.err]).toEqual([0, ""])
    expect(r.out).toContain("kind: Job")
    expect(r.out).toContain("- nodes/status")
  })

  it("refuses eviction (virtual time only) and a scheduler without a cluster, naming the file and the section", () => {
    const eviction = job("eviction.yaml", `${head}duration: 30s\ncluster: { nodes: 1 }\neviction: { node: { name: e, memory: 4Gi }, pods: [{ name: p, memory: { base: 100Mi } }] }\nphases: []\n`)
    expect([eviction.code, eviction.err]).toEqual([2, `clustersim job: ${eviction.file}: "eviction": the eviction section runs only in virtual time, not against a target\n`])
    const scheduler = job("scheduler.yaml", `${head}scheduler:\n  nodes: [{ count: 3 }]\n  batches: [{ namePrefix: web, at: 1s, count: 1, rate: 1, cpu: 100m, memory: 64Mi }]\nphases: []\n`)
    expect([scheduler.code, scheduler.err]).toEqual([2, `clustersim job: ${scheduler.file}: its simulated sections run against a target only beside a "cluster" section; this scenario has none\n`])
  })
})
