import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { readFileSync } from "node:fs"
import { scenarioThresholds } from "../../app/cli/artifact.js"
import { possibleSeries } from "../../app/scenario/PossibleSeries.js"
import { parseScenario } from "../../app/scenario/load.js"
import type { Scenario } from "../../app/scenario/Scenario.js"

const scenario = (body: string): Scenario =>
  Either.getOrThrow(parseScenario(`apiVersion: clustersim/v1\nkind: Scenario\nmetadata: { name: t }\n${body}`, "s.yaml")).scenario

const load = scenario(`setup:
  objects: [{ name: cms, resource: configmaps, namespace: load, count: 3 }]
phases:
  - name: steady
    duration: 10s
    actions:
      - { type: constant-arrival-rate, name: get, rate: 1, request: { verb: get, objects: cms } }
      - { type: closed, workers: 1, request: { verb: list, resource: cm, namespace: load } }
      - { type: constant-arrival-rate, name: churn, rate: 1, request: { verb: churn, resource: configmaps, namespace: load } }
      - { type: watch, name: w, resource: nodes, namespace: load, count: 1 }
      - { type: informers, name: inf, resource: configmaps, count: 1 }
presets: [slo]
`)

describe("the series a scenario can produce", () => {
  it("follows the keys the runner records: setup, API calls by verb and scope, churn's create and delete, watch events, informers", () => {
    const p = possibleSeries(load)
    const keys = p.map((x) => [x.metric?.join("|"), x.operation?.join("|"), x.resource?.join("|"), x.scope?.join("|"), x.name?.join("|"), x.phase?.join("|")])
    expect(keys).toEqual([
      ["setup", "POST", "configmaps", "resource", "cms", "setup"],
      ["api_call", "GET", "configmaps", "resource", "get", "steady"],
      ["api_call", "LIST", "configmaps", "namespace", "closed-1", "steady"],
      ["iteration", "CHURN", "configmaps", "resource", "churn", "steady"],
      ["api_call", "POST", "configmaps", "resource", "churn", "steady"],
      ["api_call", "DELETE", "configmaps", "resource", "churn", "steady"],
      // nodes are cluster-scoped: a namespace does not make the watch namespaced
      ["watch_event", "WATCH", "nodes", "cluster", "w", "steady"],
      ["informer_sync", "LIST", "configmaps", "cluster", "inf", "steady"],
      ["initial_list", "first_response|pages|replace|total", "configmaps", "cluster", "inf", "steady"],
      ["relist", "backoff|first_response|pages|replace|total", "configmaps", "cluster", "inf", "steady"],
      ["relist_trigger", "watch-http-410|watch-stream-410|watch-error|short-watch|list-error", "configmaps", "cluster", "inf", "steady"],
      ["watch_event", "ADDED|MODIFIED", "configmaps", "cluster", "inf", "steady"]
    ])
  })

  it("a cluster section adds pod start-up: image pulls' series in virtual time (with cluster.images), the SLI on the real clock", () => {
    const pods = (name: ReadonlyArray<string>) => [{ metric: ["pod_startup"], operation: ["start"], resource: ["pods"], scope: ["namespace"], name }]
    const plain = scenario(`phases: []\ncluster: { nodes: 3 }\n`)
    expect(possibleSeries(plain)).toEqual(pods(["create-to-observed"]))
    expect(possibleSeries(plain, "real")).toEqual(pods(["create-to-observed"]))
    expect(possibleSeries(plain, "virtual")).toEqual([])
    const pulls = Either.getOrThrow(parseScenario(readFileSync("scenarios/registry-outage.yaml", "utf8"), "scenarios/registry-outage.yaml")).scenario
    expect(possibleSeries(pulls, "virtual").filter((p) => p.metric?.[0] === "pod_startup")).toEqual(pods(["without-image-pulls", "with-image-pulls"]))
    expect(possibleSeries(pulls).filter((p) => p.metric?.[0] === "pod_startup")).toEqual(pods(["without-image-pulls", "with-image-pulls", "create-to-observed"]))
  })
})

describe("SLO presets keep only the rows the scenario can produce", () => {
  it("no pod start-up without a cluster, no cluster-scope LIST without one", () => {
    expect(scenarioThresholds(load).map((t) => t.name)).toEqual(["slo:mutating-api-calls", "slo:read-resource", "slo:read-namespace"])
  })

  it("a cluster-wide LIST and a cluster keep read-cluster and pod-startup; no mutating call drops that row", () => {
    const s = scenario(`phases:
  - name: p
    duration: 10s
    actions: [{ type: closed, workers: 1, request: { verb: list, resource: pods } }]
cluster: { nodes: 3 }
presets: [slo-legacy]
thresholds:
  "latency{metric:api_call}": ["p(99) < 1s"]
`)
    // on the real clock the cluster has the pod start-up SLI; in virtual time without cluster.images it has none
    expect(scenarioThresholds(s, "real").map((t) => t.name)).toEqual(["latency{metric:api_call}", "slo:read-cluster", "slo:pod-startup"])
    expect(scenarioThresholds(s, "virtual").map((t) => t.name)).toEqual(["latency{metric:api_call}", "slo:read-cluster"])
  })
})
