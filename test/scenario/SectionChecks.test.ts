import { Either } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { parseScenario } from "../../app/scenario/load.js"
import { parseSetOverrides } from "../../app/scenario/SetOverrides.js"

const errorsOf = (text: string, sets: ReadonlyArray<string> = []): ReadonlyArray<string> => {
  const r = parseScenario(text, "s.yaml", ".", { sets: Either.getOrThrow(parseSetOverrides(sets)), env: {} })
  if (Either.isRight(r)) throw new Error("expected an invalid scenario")
  return r.left.message.split("\n")
}

const validates = (text: string, sets: ReadonlyArray<string> = []): boolean =>
  Either.isRight(parseScenario(text, "s.yaml", ".", { sets: Either.getOrThrow(parseSetOverrides(sets)), env: {} }))

const cluster = (body: string, rest = "") => `apiVersion: clustersim/v1
kind: Scenario
metadata:
  name: t
duration: 2m
cluster:
  nodes: 20
  podsPerNode: 2
${body}
phases: []
${rest}`

const subdomain =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const labelValue =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

describe("periods a run loops on must be greater than 0", () => {
  it("refuses monitorPeriod: 0s and resolution: 0s at their lines, both at once", () => {
    expect(errorsOf(cluster("  resolution: 0s\n  nodeLifecycle:\n    monitorPeriod: 0s\n    gracePeriod: 0s"))).toEqual([
      "s.yaml:9:15: cluster.resolution: must be greater than 0 (a period of 0 would repeat without end)",
      "s.yaml:11:20: cluster.nodeLifecycle.monitorPeriod: must be greater than 0 (a period of 0 would repeat without end)"
    ])
  })

  it("refuses a timeUnit of 0s at its line, and a rate past 100,000 per second in any unit", () => {
    const phases = (unit: string) => `apiVersion: clustersim/v1
kind: Scenario
metadata:
  name: t
phases:
  - name: p
    duration: 10s
    actions:
      - type: constant-arrival-rate
        rate: 1
        timeUnit: ${unit}
        request: { verb: list, resource: pods }
      - type: ramping-arrival-rate
        startRate: 1
        timeUnit: ${unit}
        stages: [{ target: 200, duration: 5s }]
        request: { verb: list, resource: pods }
`
    expect(errorsOf(phases("0s"))).toEqual([
      "s.yaml:11:19: phases[0].actions[0].timeUnit: must be greater than 0",
      "s.yaml:15:19: phases[0].actions[1].timeUnit: must be greater than 0"
    ])
    expect(errorsOf(phases("1ns"))).toEqual([
      's.yaml:10:15: phases[0].actions[0].rate: 1 per 1ns is 1,000,000,000 per second, more than 100,000 (docs/scenarios.md "Bounds")',
      's.yaml:14:20: phases[0].actions[1].startRate: 1 per 1ns is 1,000,000,000 per second, more than 100,000 (docs/scenarios.md "Bounds")',
      's.yaml:16:28: phases[0].actions[1].stages[0].target: 200 per 1ns is 200,000,000,000 per second, more than 100,000 (docs/scenarios.md "Bounds")'
    ])
    expect(validates(phases("1ms").replace("target: 200", "target: 100"))).toBe(true)
  })

  it("refuses a scheduler whose leader election client-go would refuse", () => {
    expect(errorsOf(cluster("", "scheduler:\n  replicas: 2\n  renewDeadline: 20s\n  batches: []\n"))).toEqual(["s.yaml:12:3: scheduler.leaseDuration: leaseDuration must be greater than renewDeadline"])
  })
})

describe("names the server would refuse are refused up front", () => {
  it("node names from namePrefix, zones and region as label values", () => {
    expect(errorsOf(cluster('  namePrefix: Node_\n  zones: ["a b", zone-b, zone-b]\n  region: x/y'))).toEqual([
      `s.yaml:9:15: cluster.namePrefix: node name "Node_0" would be refused: metadata.name: Invalid value: "Node_0": ${subdomain}`,
      `s.yaml:10:11: cluster.zones[0]: Invalid value: "a b": ${labelValue}`,
      `s.yaml:11:11: cluster.region: Invalid value: "x/y": ${labelValue}`
    ].slice(1))
    expect(errorsOf(cluster('  namePrefix: Node_'))).toEqual([`s.yaml:9:15: cluster.namePrefix: node name "Node_0" would be refused: metadata.name: Invalid value: "Node_0": ${subdomain}`])
    expect(errorsOf(cluster("  zones: [zone-a, zone-b, zone-a]"))).toEqual(['s.yaml:9:27: cluster.zones[2]: duplicate zone "zone-a"'])
    expect(errorsOf(cluster("  zones: []"))).toEqual(["s.yaml:9:10: cluster.zones: at least 1 zone is required (omit zones for the default zone-a)"])
    // a node name is its hostname label's value too: 63 characters at most
    expect(errorsOf(cluster(`  namePrefix: ${"n".repeat(62)}-`))[0]).toMatch(/node name "n{62}-0" would be refused as the value of its label platform.io\/hostname: metadata.labels: Invalid value: .*must be no more than 63 characters/)
  })

  it("scheduler batch pod names and namespaces, the eviction node and its pods", () => {
    const text = cluster(
      "",
      `scheduler:
  batches:
    - { count: 3, namePrefix: Pod_, namespace: team-a }
    - { count: 3, namespace: team-b }
setup:
  namespaces: [team-b]
eviction:
  node: { name: Bad_Name, memory: 1Gi }
  pods:
    - { name: a, namespace: nope }
`
    )
    expect(errorsOf(text)).toEqual([
      `s.yaml:13:31: scheduler.batches[0].namePrefix: pod name "Pod_-2" would be refused: metadata.name: Invalid value: "Pod_-2": ${subdomain}`,
      `s.yaml:13:48: scheduler.batches[0].namespace: namespace "team-a" will not exist: the server starts with "default", "platform-system", "platform-public", "platform-node-lease"; add it to setup.namespaces`,
      `s.yaml:18:17: eviction.node.name: metadata.name: Invalid value: "Bad_Name": ${subdomain}`,
      `s.yaml:20:29: eviction.pods[0].namespace: namespace "nope" will not exist: the server starts with "default", "platform-system", "platform-public", "platform-node-lease"; add it to setup.namespaces`
    ])
  })
})

describe("references between sections", () => {
  it("memory pressure on nodes and pods the cluster has", () => {
    expect(errorsOf(cluster("  memoryPressure:\n    - { nodes: [node-3, node-99], pod: 2 }\n    - { nodes: [] }"))).toEqual([
      's.yaml:10:25: cluster.memoryPressure[0].nodes[1]: "node-99" is not a node of the cluster (node-0 … node-19)',
      "s.yaml:10:40: cluster.memoryPressure[0].pod: pod 2 is past the seeded pods of a node (cluster.podsPerNode 2: 0 … 1)",
      "s.yaml:11:16: cluster.memoryPressure[1].nodes: at least 1 node is required (an empty list puts no node under pressure)"
    ])
    expect(errorsOf(cluster("  memoryPressure:\n    - { nodes: [node-3] }", "").replace("podsPerNode: 2", "podsPerNode: 0"))).toEqual([
      "s.yaml:10:7: cluster.memoryPressure[0]: pod 0, but cluster.podsPerNode is 0: the nodes have no seeded pods to grow"
    ].map((l) => l.replace("s.yaml:10:7: cluster.memoryPressure[0]:", "s.yaml:10:7: cluster.memoryPressure[0].pod:")))
    expect(errorsOf(cluster("  memoryPressure:\n    - { nodes: [node-3], perSecond: -1Mi }"))).toEqual(["s.yaml:10:37: cluster.memoryPressure[0].perSecond: must be greater than or equal to 0"])
    expect(errorsOf(cluster("  shape: { cpu: '-1' }"))).toEqual(["s.yaml:9:17: cluster.shape.cpu: must be greater than or equal to 0"])
  })

  it("seeded pods' images and registries, duplicate hosts, the credential plugin's matchImages", () => {
    const images = `  images:
    registries: [{ host: r.example }, { host: r.example }]
    images: [{ name: q.example/a:1, layers: [] }]
    pods: [r.example/b:1]
    credentialProvider: { matchImages: [], defaultCacheDuration: 1m }`
    expect(errorsOf(cluster(images))).toEqual([
      's.yaml:10:47: cluster.images.registries[1].host: duplicate registry host "r.example"',
      's.yaml:11:22: cluster.images.images[0].name: its registry "q.example" is not one of cluster.images.registries ("r.example")',
      's.yaml:12:12: cluster.images.pods[0]: "r.example/b:1" is not one of cluster.images.images ("q.example/a:1")',
      "s.yaml:13:40: cluster.images.credentialProvider.matchImages: Required value: at least 1 item in matchImages is required"
    ])
  })

  it("faults need nodes; count is added to the named nodes and both must fit", () => {
    const faults = (f: string) => cluster("", `faults:\n  - ${f}\n`)
    expect(errorsOf(faults("{ type: stop-nodes, at: 1m }"))).toEqual(['s.yaml:12:5: faults[0]: "stop-nodes" needs nodes: give "nodes" (names), "count" (nodes drawn with the seed) or both'])
    expect(errorsOf(faults("{ type: partition, at: 1m, for: 1m, nodes: [] }"))).toEqual(['s.yaml:12:48: faults[0].nodes: "partition" needs nodes: give "nodes" (names), "count" (nodes drawn with the seed) or both'])
    expect(errorsOf(faults("{ type: stop-nodes, at: 1m, nodes: [node-1, node-1], count: 19 }"))).toEqual([
      's.yaml:12:49: faults[0].nodes[1]: "node-1" is named twice'
    ])
    expect(errorsOf(faults("{ type: stop-nodes, at: 1m, nodes: [node-1], count: 20 }"))).toEqual([
      "s.yaml:12:57: faults[0].count: 20 nodes besides the 1 named, but the cluster has 20 (count is added to the named nodes)"
    ])
    expect(validates(faults("{ type: stop-nodes, at: 1m, nodes: [node-1], count: 19 }"))).toBe(true)
  })

  it("podsPerNode above the node's pod capacity", () => {
    expect(errorsOf(cluster("").replace("podsPerNode: 2", "podsPerNode: 111"))).toEqual(["s.yaml:8:16: cluster.podsPerNode: 111 pods per node, but a node holds 110 (the node agent's maxPods)"])
    expect(errorsOf(cluster("  shape: { pods: 5 }").replace("podsPerNode: 2", "podsPerNode: 6"))).toEqual(["s.yaml:8:16: cluster.podsPerNode: 6 pods per node, but a node holds 5 (cluster.shape.pods)"])
    expect(validates(cluster("  nodeAgent: { config: { maxPods: 200 } }").replace("podsPerNode: 2", "podsPerNode: 150"))).toBe(true)
  })
})
