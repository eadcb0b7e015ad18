/**
 * Every manifest `clustersim job` prints, checked against upstream's 1.26 OpenAPI v3 schemas (batch/v1 Job — which
 * `clustersim serve` does not serve —, RBAC, core ConfigMap and ServiceAccount; test/fixtures/upstream-openapi/) as a
 * real cluster's strict field validation would: kinds known, required fields there, types right, no unknown
 * field. The values upstream's Go validation allows, which the 1.26 documents carry no `enum` for, are listed here
 * with the file they come from. The checker is shown to refuse broken manifests, so a pass means something.
 */
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseAllDocuments } from "yaml"
import { jobCommand } from "../../app/cli/jobCommand.js"
import { checkManifest, loadSchemas, type Enums } from "../support/OpenApiV3Check.js"

const fixtures = new URL("../fixtures/upstream-openapi/1.26/", import.meta.url).pathname
const schemas = loadSchemas(...["apis__batch__v1_openapi.json", "apis__rbac.authorization.k8s.io__v1_openapi.json", "api__v1_openapi.json"].map((f) => join(fixtures, f)))

const enums: Enums = {
  // pkg/apis/batch/validation/validation.go: the completion modes, and a Job's pods restart OnFailure or Never
  "io.k8s.api.batch.v1.JobSpec.completionMode": ["NonIndexed", "Indexed"],
  "io.k8s.api.core.v1.PodSpec.restartPolicy": ["OnFailure", "Never"],
  // pkg/apis/core/validation/validation.go
  "io.k8s.api.core.v1.Container.imagePullPolicy": ["Always", "Never", "IfNotPresent"],
  "io.k8s.api.core.v1.SeccompProfile.type": ["RuntimeDefault", "Unconfined", "Localhost"],
  // pkg/apis/rbac/validation/validation.go
  "io.k8s.api.rbac.v1.RoleRef.apiGroup": ["rbac.authorization.k8s.io"],
  "io.k8s.api.rbac.v1.RoleRef.kind": ["Role", "ClusterRole"],
  "io.k8s.api.rbac.v1.Subject.kind": ["ServiceAccount", "User", "Group"]
}

let lastError = ""
const dir = mkdtempSync(join(tmpdir(), "clustersim-job-schemas-"))

/** What `clustersim job FILE --segments n …` prints, as objects; undefined when it refuses the scenario. */
const printed = (file: string, segments: number, extra: { name?: string; namespace?: string } = {}) => {
  let out = ""
  const code = jobCommand({ file, segments, image: "registry.example/clustersim:1.0", name: extra.name, namespace: extra.namespace, stdout: (s) => void (out += s), stderr: (s) => void (lastError = s) })
  return code === 0 ? parseAllDocuments(out).map((d) => d.toJSON() as Record<string, any>) : undefined
}

const loadScenario = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: mixed-load }
seed: 3
generator:
  rendezvous: { namespace: loadtest, margin: 2s, timeout: 60s }
setup:
  namespaces: [load]
  objects:
    - { name: cms, resource: configmaps, namespace: load, count: 5, template: { data: { k: v } } }
phases:
  - name: steady
    duration: 5s
    actions:
      - { type: constant-arrival-rate, name: gets, rate: 10, maxInFlight: 100, request: { verb: get, objects: cms } }
      - { type: watch, name: lease-watch, resource: leases, count: 2 }
      - { type: informers, name: pods, resource: pods, count: 1 }
`

describe("clustersim job's manifests against upstream's 1.26 schemas", () => {
  it("every kind printed is known upstream and every manifest is valid, for a load scenario, another namespace and 1, 3, 1000 segments", () => {
    const file = join(dir, "mixed.yaml")
    writeFileSync(file, loadScenario)
    for (const [segments, extra] of [
      [1, {}],
      [3, {}],
      [1000, { name: "other", namespace: "elsewhere" }]
    ] as const) {
      const docs = printed(file, segments, extra)
      if (docs === undefined) throw new Error(lastError)
      expect(docs.map((d) => `${d.apiVersion} ${d.kind}`)).toEqual([
        "v1 ConfigMap",
        "v1 ServiceAccount",
        "rbac.authorization.k8s.io/v1 ClusterRole",
        "rbac.authorization.k8s.io/v1 ClusterRoleBinding",
        "rbac.authorization.k8s.io/v1 Role",
        "rbac.authorization.k8s.io/v1 RoleBinding",
        "batch/v1 Job"
      ])
      for (const d of docs) expect([d.kind, checkManifest(schemas, d, enums)]).toEqual([d.kind, []])
      const job = docs.at(-1)!
      expect([job.spec.completionMode, job.spec.completions, job.spec.parallelism]).toEqual(["Indexed", segments, segments])
      // rbac validation: a ClusterRoleBinding may only refer to a ClusterRole
      expect(docs.find((d) => d.kind === "ClusterRoleBinding")!.roleRef.kind).toBe("ClusterRole")
      // core validation of an env fieldRef: `metadata.labels['<key>']` is one of the supported downward-API paths
      expect(job.spec.template.spec.containers[0].env[0].valueFrom.fieldRef.fieldPath).toMatch(/^metadata\.labels\['[a-z0-9./-]+'\]$/)
    }
  })

  it("every shipped scenario's manifests are valid, real-time clusters' too", () => {
    const files = [...readdirSync("scenarios").map((f) => join("scenarios", f)), ...readdirSync("scenarios/cluster").map((f) => join("scenarios/cluster", f))].filter((f) => f.endsWith(".yaml"))
    let checked = 0
    for (const f of files) {
      const docs = printed(f, 2)
      if (docs === undefined) continue // simulated sections without a cluster, or eviction: job refuses them
      checked++
      for (const d of docs) expect([f, d.kind, checkManifest(schemas, d, enums)]).toEqual([f, d.kind, []])
    }
    expect(checked).toBeGreaterThan(6)
  })

  it("the check refuses what a real cluster would: unknown fields, wrong types, missing required fields, unsupported values, the spec's group", () => {
    const file = join(dir, "mixed.yaml")
    writeFileSync(file, loadScenario)
    const docs = printed(file, 2)!
    const job = docs.at(-1)!
    const edited = (f: (j: any) => void) => {
      const copy = structuredClone(job)
      f(copy)
      return checkManifest(schemas, copy, enums)
    }
    expect(edited((j) => (j.spec.completionmode = "Indexed"))).toEqual(['unknown field "spec.completionmode"'])
    expect(edited((j) => (j.spec.template.spec.containers[0].resource = {}))).toEqual(['unknown field "spec.template.spec.containers[0].resource"'])
    expect(edited((j) => (j.spec.completions = "2"))).toEqual(['spec.completions in body must be of type integer: "string"'])
    expect(edited((j) => (j.spec.backoffLimit = 2 ** 31))).toEqual([`spec.backoffLimit in body must be of type int32: "${2 ** 31}"`])
    expect(edited((j) => delete j.spec.template)).toEqual(["spec.template: Required value"])
    expect(edited((j) => delete j.spec.template.spec.containers[0].name)).toEqual(["spec.template.spec.containers[0].name: Required value"])
    expect(edited((j) => (j.spec.completionMode = "indexed"))).toEqual(['spec.completionMode: Unsupported value: "indexed": supported values: "NonIndexed", "Indexed"'])
    expect(edited((j) => (j.spec.template.spec.restartPolicy = "Always"))).toEqual(['spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"'])
    expect(edited((j) => (j.spec.template.spec.containers[0].resources.requests.cpu = true))).toEqual(["spec.template.spec.containers[0].resources.requests.cpu in body must match exactly one schema in oneOf"])
    const port = { containerPort: 8080, protocol: "TCP" }
    expect(edited((j) => (j.spec.template.spec.containers[0].ports = [port, port]))).toEqual(['spec.template.spec.containers[0].ports[1]: Duplicate value: [8080,"TCP"]'])
    const binding = docs.find((d) => d.kind === "RoleBinding")!
    expect(checkManifest(schemas, { ...binding, roleRef: { ...binding.roleRef, apiGroup: "rbac.authorization.platform" } }, enums)).toEqual([
      'roleRef.apiGroup: Unsupported value: "rbac.authorization.platform": supported values: "rbac.authorization.k8s.io"'
    ])
    expect(checkManifest(schemas, { ...binding, roleRef: { kind: "Role", apiGroup: "rbac.authorization.k8s.io" } }, enums)).toEqual(["roleRef.name: Required value"])
    expect(checkManifest(schemas, { ...binding, apiVersion: "rbac.authorization.platform/v1" }, enums)).toEqual(['no matches for kind "RoleBinding" in version "rbac.authorization.platform/v1"'])
  })
})
