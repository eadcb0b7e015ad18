/**
 * `clustersim job SCENARIO --segments n [--image IMG] [--name NAME] [--namespace NS]`: the manifests that run a
 * scenario's load as n segments of an Indexed Job (docs/distributed.md "On Kubernetes"): the scenario as a
 * ConfigMap; a ServiceAccount with the least RBAC the scenario's requests need (app/scenario/ScenarioAccess.ts) plus
 * what the rendezvous and the published results need in the Job's namespace; the Job itself, whose pod *i* runs
 * `clustersim run --target in-cluster --segment job/n --rendezvous <the Job's uid> --publish NAME`. Printed as one
 * YAML stream for `kubectl apply -f -`; `clustersim collect NAME` reads the result.
 */
import { stringify } from "yaml"
import { scenarioAccess } from "../scenario/ScenarioAccess.js"
import type { Scenario } from "../scenario/Scenario.js"

export interface JobOptions {
  readonly scenario: Scenario
  /** The scenario file's text, as the pods will read it. */
  readonly text: string
  readonly segments: number
  readonly image: string
  /** Default: the scenario's name. */
  readonly name?: string
  /** Default: the scenario's rendezvous namespace, else `default`. */
  readonly namespace?: string
}

/** A DNS-1123 label from a scenario name (a Job's name becomes its pods' label value: ≤ 63). */
export const jobName = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 52)
    .replace(/-+$/, "") || "clustersim"

/** Where the scenario file is mounted in the pods. */
export const ScenarioMount = "/scenario"

export const jobManifests = (o: JobOptions): ReadonlyArray<Record<string, unknown>> => {
  const name = o.name ?? jobName(o.scenario.metadata.name)
  const namespace = o.namespace ?? o.scenario.generator?.rendezvous?.namespace ?? "default"
  const labels = { "app.kubernetes.io/name": "clustersim", "app.kubernetes.io/instance": name, "app.kubernetes.io/managed-by": "clustersim" }
  const meta = (n: string, namespaced = true) => ({ name: n, ...(namespaced ? { namespace } : {}), labels })
  const rules = scenarioAccess(o.scenario).map((r) => ({ apiGroups: [r.apiGroup], resources: [r.resource], verbs: r.verbs }))
  const subject = [{ kind: "ServiceAccount", name, namespace }]
  // the pods rendezvous in the Job's namespace: the scenario must say the same, or they would look elsewhere
  const sets = o.namespace !== undefined && o.namespace !== (o.scenario.generator?.rendezvous?.namespace ?? "default") ? ["--set", `generator.rendezvous.namespace=${namespace}`] : []
  return [
    { apiVersion: "v1", kind: "ConfigMap", metadata: meta(`${name}-scenario`), data: { "scenario.yaml": o.text } },
    { apiVersion: "v1", kind: "ServiceAccount", metadata: meta(name), automountServiceAccountToken: true },
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: meta(`${namespace}-${name}-load`, false), rules },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: meta(`${namespace}-${name}-load`, false),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: `${namespace}-${name}-load` },
      subjects: subject
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: meta(`${name}-results`),
      // the rendezvous ConfigMap and the published segment artifacts
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["create", "get", "list", "patch", "update"] }]
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: meta(`${name}-results`),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: `${name}-results` },
      subjects: subject
    },
    {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: meta(name),
      spec: {
        completionMode: "Indexed",
        completions: o.segments,
        parallelism: o.segments,
        // a segment run twice would register twice: a failed segment fails the run, named by collect
        backoffLimit: 0,
        ttlSecondsAfterFinished: 86_400,
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: name,
            restartPolicy: "Never",
            securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, seccompProfile: { type: "RuntimeDefault" } },
            containers: [
              {
                name: "clustersim",
                image: o.image,
                args: [
                  "run",
                  `${ScenarioMount}/scenario.yaml`,
                  "--target",
                  "in-cluster",
                  "--segment",
                  `job/${o.segments}`,
                  "--rendezvous",
                  "$(RUN_ID)",
                  "--publish",
                  name,
                  "--out",
                  "/tmp/run",
                  ...sets
                ],
                // the Job's uid: one rendezvous per run of the Job, a new one when it is applied again
                env: [{ name: "RUN_ID", valueFrom: { fieldRef: { fieldPath: "metadata.labels['controller-uid']" } } }],
                resources: { requests: { cpu: "1", memory: "1Gi" }, limits: { memory: "2Gi" } },
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } },
                volumeMounts: [
                  { name: "scenario", mountPath: ScenarioMount, readOnly: true },
                  { name: "tmp", mountPath: "/tmp" }
                ]
              }
            ],
            volumes: [
              { name: "scenario", configMap: { name: `${name}-scenario` } },
              { name: "tmp", emptyDir: {} }
            ]
          }
        }
      }
    }
  ]
}

/** The manifests as one YAML stream. */
export const renderManifests = (docs: ReadonlyArray<Record<string, unknown>>): string => docs.map((d) => stringify(d, { lineWidth: 0 })).join("---\n")
