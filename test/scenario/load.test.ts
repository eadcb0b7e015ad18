import { Either } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { parseScenario } from "../../app/scenario/load.js"

const errorsOf = (text: string): ReadonlyArray<string> => {
  const r = parseScenario(text, "s.yaml")
  if (Either.isRight(r)) throw new Error("expected an invalid scenario")
  return r.left.message.split("\n")
}

const head = `apiVersion: clustersim/v1
kind: Scenario
metadata:
  name: t
`

describe("scenario validation", () => {
  it("names file, line, column and field path for type, range and unknown-field errors", () => {
    const text = `${head}phases:
  - name: p1
    duration: 10s
    actions:
      - type: constant-arrival-rate
        rate: -5
        request: { verb: get, name: x, resource: configmaps }
      - type: watch
        resource: configmapz
        count: 2
        colour: red
`
    expect(errorsOf(text)).toEqual([
      "s.yaml:10:15: phases[0].actions[0].rate: Expected a positive number, actual -5",
      "s.yaml:13:19: phases[0].actions[1].resource: unknown resource \"configmapz\"",
      "s.yaml:15:9: phases[0].actions[1].colour: unknown field"
    ])
  })

  it("reports an unknown action type, a bad duration and a bad name", () => {
    const text = `apiVersion: clustersim/v1
kind: Scenario
metadata:
  name: Bad_Name
phases:
  - name: p1
    duration: 10x
    actions:
      - type: bogus
`
    expect(errorsOf(text)).toEqual([
      "s.yaml:4:9: metadata.name: must be lower-case letters, digits, '-' or '.'",
      's.yaml:7:15: phases[0].duration: time: unknown unit "x" in duration "10x"',
      's.yaml:9:15: phases[0].actions[0].type: Expected "constant-arrival-rate" | "ramping-arrival-rate" | "closed" | "watch" | "informers" | "compact" | "drop-watches" | "pause" | "expire-continue-token" | "expire-tokens" | "replay", actual "bogus"'
    ])
  })

  it("points a missing required field at its parent", () => {
    const text = `${head}phases:
  - name: p1
    duration: 1s
    actions:
      - type: pause
        at: 1s
`
    expect(errorsOf(text)).toEqual(["s.yaml:9:9: phases[0].actions[0].for: required field is missing"])
  })

  it("checks thresholds with the k6 parser and names the token: every threshold, each expression at its place", () => {
    const text = `${head}phases: []
thresholds:
  "latency{operation:GET}": ["p(99) < 1parsec"]
  "latencyy": ["p(99) < 1s"]
  "errors":
    - rate < 0.1
    - rat < 0.2
    - { threshold: "count >> 1", allowNoData: true }
  "iterations": { threshold: "count = 1" }
`
    const known = "latency, service_time, errors, iterations, dropped_iterations, lease_writes, lease_failures, lease_renew_latency, apf_dispatched, apf_rejected, ready_transitions, not_ready_nodes, server_relist_memory_peak, server"
    expect(errorsOf(text)).toEqual([
      's.yaml:7:30: thresholds["latency{operation:GET}"][0]: invalid threshold "p(99) < 1parsec": unknown unit (expected us, ms, s, m, h) "parsec"',
      `s.yaml:8:15: thresholds.latencyy: invalid threshold "latencyy": unknown metric (known: ${known}) "latencyy"; did you mean "latency"?`,
      's.yaml:11:7: thresholds.errors[1]: invalid threshold "rat < 0.2": unknown aggregation (expected p(N), avg, min, med, max, count, rate) "rat"',
      's.yaml:12:20: thresholds.errors[2].threshold: invalid threshold "count >> 1": expected a number, got ">"',
      's.yaml:13:30: thresholds.iterations.threshold: invalid threshold "count = 1": expected a comparator (<, <=, >, >=, ==, !=), got "="'
    ])
  })

  it("reports every NodeAgentConfiguration problem at its field, those past a field that does not decode too", () => {
    const text = `${head}cluster:
  nodes: 2
  nodeAgent:
    config:
      imageGCLowThresholdPercent: 60
      imageGCHighThresholdPercent: 50
      oomScoreAdj: abc
      evictionSoft: { memory.available: 100Mi }
phases: []
`
    expect(errorsOf(text)).toEqual([
      "s.yaml:9:35: cluster.nodeAgent.config.imageGCLowThresholdPercent: invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 60 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 50",
      "s.yaml:11:20: cluster.nodeAgent.config.oomScoreAdj: json: cannot unmarshal string into Go struct field NodeAgentConfiguration.oomScoreAdj of type int32",
      's.yaml:12:41: cluster.nodeAgent.config.evictionSoft["memory.available"]: grace period must be specified for the soft eviction threshold memory.available'
    ])
  })

  it("names the closest field or value of a misspelling in the file, as --set does", () => {
    const text = `${head}duraton: 2m
cluster:
  nodes: 3
  nodez: 20
faults:
  - { type: stop-node, at: 1m }
phases: []
`
    expect(errorsOf(text)).toEqual([
      's.yaml:5:1: duraton: unknown field; did you mean "duration"?',
      's.yaml:8:3: cluster.nodez: unknown field; did you mean "nodes"?',
      's.yaml:10:13: faults[0].type: Expected "stop-nodes" | "partition" | "apiserver-pause" | "apiserver-restart" | "registry-outage" | "expire-registry-credentials", actual "stop-node"; did you mean "stop-nodes"?'
    ])
  })

  it("a second YAML document, merge keys, sharedSeats: 0: messages for the user", () => {
    expect(errorsOf(`${head}phases: []\n---\nfoo: 1\n`)).toEqual(["s.yaml:6:1: YAML: a scenario file is one YAML document; a second one starts here"])
    const merged = parseScenario(`${head}cluster:\n  nodes: 2\n  shape: { <<: { cpu: "2", memory: 8Gi }, pods: 20 }\nphases: []\n`, "s.yaml")
    expect(Either.isRight(merged) && merged.right.scenario.cluster!.shape).toEqual({ cpu: "2", memory: "8Gi", pods: 20 })
    expect(errorsOf(`${head}cluster: { nodes: 2, serviceTime: { apf: false, sharedSeats: 0 } }\nphases: []\n`)).toEqual([
      "s.yaml:5:62: cluster.serviceTime.sharedSeats: expected a positive integer (seats of the one shared pool), got 0"
    ])
  })

  it("checks a cluster metric's tag values against those its samples carry, naming the closest", () => {
    const text = `${head}cluster: { nodes: 2 }
phases: []
thresholds:
  "apf_rejected{priority_level:nodehigh}": ["count == 0"]
  "apf_rejected{reason:queuefull}": ["count == 0"]
  "ready_transitions{status:NotReady}": ["count == 0"]
  "ready_transitions{status:unknown}": ["count == 0"]
  "apf_dispatched{priority_level:workload-low}": ["count > 0"]
`
    expect(errorsOf(text)).toEqual([
      's.yaml:8:3: thresholds["apf_rejected{priority_level:nodehigh}"]: no apf_rejected sample has priority_level "nodehigh"; did you mean "node-high"?',
      's.yaml:9:3: thresholds["apf_rejected{reason:queuefull}"]: no apf_rejected sample has reason "queuefull"; did you mean "queue-full"?',
      's.yaml:10:3: thresholds["ready_transitions{status:NotReady}"]: no ready_transitions sample has status "NotReady" (status is one of "False", "True", "Unknown")'
    ])
    // APF off: its metrics have no samples, unless the threshold passes on no data by choice
    const off = `${head}cluster: { nodes: 2, serviceTime: { apf: false } }
phases: []
thresholds:
  "apf_rejected": ["count == 0"]
  "apf_dispatched": [{ threshold: "count > 0", allowNoData: true }]
`
    expect(errorsOf(off)).toEqual(['s.yaml:8:3: thresholds.apf_rejected: apf_rejected needs API Priority and Fairness, which cluster.serviceTime turns off'])
  })

  it("checks references between sections", () => {
    const text = `${head}setup:
  objects:
    - { name: cms, resource: configmaps, count: 3 }
phases:
  - name: p1
    duration: 1s
    actions:
      - type: closed
        workers: 1
        request: { verb: get, objects: nope }
      - type: closed
        workers: 1
        request: { verb: get, resource: pods, objects: cms }
`
    expect(errorsOf(text)).toEqual([
      's.yaml:14:40: phases[0].actions[0].request.objects: no setup object set named "nope"',
      "s.yaml:17:41: phases[0].actions[1].request.resource: object set \"cms\" holds configmaps, not pods"
    ])
  })

  it("reports YAML syntax errors and empty files with their position", () => {
    expect(errorsOf("a: [1\n")[0]).toMatch(/^s\.yaml:2:1: YAML: /)
    expect(errorsOf("")).toEqual(["s.yaml: empty file"])
    expect(errorsOf("a: 1\na: 2\n")[0]).toMatch(/^s\.yaml:2:1: YAML: Map keys must be unique/)
  })

  it("rejects a wrong apiVersion", () => {
    expect(errorsOf(`apiVersion: v1\nkind: Scenario\nmetadata: { name: t }\nphases: []\n`)).toEqual([
      's.yaml:1:13: apiVersion: Expected "clustersim/v1", actual "v1"'
    ])
  })

  it("names the file and field of a bad server or client feature gate (docs/watchlist.md)", () => {
    expect(errorsOf(`${head}server:\n  featureGates: { WatchLists: true }\nclientFeatureGates:\n  WatchList: true\nphases: []\n`)).toEqual([
      "s.yaml:6:17: server.featureGates: unrecognized feature gate: WatchLists",
      "s.yaml:8:3: clientFeatureGates.WatchList: unknown field"
    ])
    expect(errorsOf(`${head}clientFeatureGates:\n  WatchListClient: "on"\nphases: []\n`)).toEqual(['s.yaml:6:20: clientFeatureGates.WatchListClient: Expected boolean, actual "on"'])
    expect(errorsOf(`${head}server:\n  featureGates: { CPUManager: false }\nphases: []\n`)).toEqual([
      "s.yaml:6:17: server.featureGates: cannot set feature gate CPUManager to false, feature is locked to true"
    ])
    const ok = parseScenario(`${head}server:\n  featureGates: { WatchList: true }\nclientFeatureGates:\n  WatchListClient: true\nphases: []\n`, "s.yaml")
    expect(Either.isRight(ok) && ok.right.scenario.clientFeatureGates).toEqual({ WatchListClient: true })
  })

  it("accepts every shipped scenario", () => {
    for (const f of readdirSync("scenarios").filter((n) => n.endsWith(".yaml") && !n.includes("failover") && !n.includes("memory-pressure"))) {
      const r = parseScenario(readFileSync(`scenarios/${f}`, "utf8"), f)
      expect(Either.isRight(r) ? "ok" : r.left.message).toBe("ok")
    }
  })
})

describe("one Schema for every section", () => {
  const everySection = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: t, colour: red }
seed: 1
server: { watchBufferSize: 0, z: 1 }
cluster:
  nodes: many
  bogus: 1
  nodeAgent:
    config:
      nodeLeaseDurationSeconds: -1
      eventBurst: -5
      madeUp: true
faults:
  - { type: stop-nodes, at: 5, extra: 2 }
scheduler: { replicas: "two", batches: [], foo: 1 }
eviction: { node: { memory: 5 }, pods: [], bar: 2 }
setup: { objects: [{ name: a, resource: configmaps, count: 1e12 }], x: 1 }
outcome: { requireSetup: "yes" }
phases:
  - name: p
    duration: 1000h
    y: 1
    actions:
      - { type: constant-arrival-rate, rate: 1e9, request: { verb: list, resource: pods } }
      - { type: closed, workers: 10000000, request: { verb: list, resource: pods } }
`

  it("reports a wrong type and an unknown key in every section, the node agent validator's errors and the bounds, all at once", () => {
    expect(errorsOf(everySection)).toEqual([
      "s.yaml:3:22: metadata.colour: unknown field",
      "s.yaml:5:28: server.watchBufferSize: Expected a number between 1 and 1000000, actual 0",
      "s.yaml:5:31: server.z: unknown field",
      's.yaml:7:10: cluster.nodes: Expected number, actual "many"',
      "s.yaml:8:3: cluster.bogus: unknown field",
      "s.yaml:11:33: cluster.nodeAgent.config.nodeLeaseDurationSeconds: invalid configuration: nodeLeaseDurationSeconds must be greater than 0",
      "s.yaml:12:19: cluster.nodeAgent.config.eventBurst: invalid configuration: eventBurst (--event-burst) -5 must not be a negative number",
      's.yaml:13:15: cluster.nodeAgent.config.madeUp: unknown field "madeUp"',
      "s.yaml:15:29: faults[0].at: Expected string, actual 5",
      "s.yaml:15:32: faults[0].extra: unknown field",
      's.yaml:16:24: scheduler.replicas: Expected number, actual "two"',
      "s.yaml:16:44: scheduler.foo: unknown field",
      "s.yaml:17:29: eviction.node.memory: Expected string, actual 5",
      "s.yaml:17:44: eviction.bar: unknown field",
      "s.yaml:18:60: setup.objects[0].count: Expected a number between 0 and 1000000, actual 1000000000000",
      "s.yaml:18:69: setup.x: unknown field",
      's.yaml:19:26: outcome.requireSetup: Expected boolean, actual "yes"',
      "s.yaml:22:15: phases[0].duration: duration must be at most 24h0m0s",
      "s.yaml:23:5: phases[0].y: unknown field",
      "s.yaml:25:46: phases[0].actions[0].rate: Expected a number less than or equal to 100000, actual 1000000000",
      "s.yaml:26:34: phases[0].actions[1].workers: Expected a number between 1 and 10000, actual 10000000"
    ])
  })

  it("locates a node agent decode error and a bad eviction map inside the inline configuration", () => {
    const text = `${head}phases: []
cluster:
  nodes: 2
  nodeAgent:
    config:
      nodeStatusUpdateFrequency: soon
`
    expect(errorsOf(text)).toEqual(['s.yaml:10:34: cluster.nodeAgent.config.nodeStatusUpdateFrequency: time: invalid duration "soon"'])
  })

  it("refuses sizes past the bounds in the cluster and scheduler sections", () => {
    const text = `${head}phases: []
cluster: { nodes: 10000000, podsPerNode: 5000 }
scheduler: { replicas: 50, nodes: [{ count: 1e9 }], batches: [{ count: 1e12, rate: 1e9 }] }
`
    expect(errorsOf(text)).toEqual([
      "s.yaml:6:19: cluster.nodes: Expected a number between 0 and 100000, actual 10000000",
      "s.yaml:6:42: cluster.podsPerNode: Expected a number between 0 and 1000, actual 5000",
      "s.yaml:7:24: scheduler.replicas: Expected a number between 1 and 10, actual 50",
      "s.yaml:7:45: scheduler.nodes[0].count: Expected a number between 0 and 100000, actual 1000000000",
      "s.yaml:7:72: scheduler.batches[0].count: Expected a number between 0 and 1000000, actual 1000000000000",
      "s.yaml:7:84: scheduler.batches[0].rate: Expected a number between 0 and 100000, actual 1000000000"
    ])
  })

  it("refuses more seeded pods than the bound, though each factor is within its own, at podsPerNode's line", () => {
    expect(errorsOf(`${head}phases: []\ncluster: { nodes: 65000, podsPerNode: 31 }\n`)).toEqual([
      `s.yaml:6:39: cluster.podsPerNode: 65,000 nodes × 31 pods per node is 2,015,000 pods, more than 2,000,000 (docs/scenarios.md "Bounds")`
    ])
    expect(Either.isRight(parseScenario(`${head}phases: []\ncluster: { nodes: 65000, podsPerNode: 30 }\n`, "s.yaml"))).toBe(true)
  })

  it("refuses a fault that names what the cluster lacks: a node, more nodes than it has (a time after the end is allowed)", () => {
    const text = `${head}duration: 10m
phases: []
cluster: { nodes: 3 }
faults:
  - { type: stop-nodes, at: 1m, nodes: [node-2, node-3, web-1] }
  - { type: partition, at: 10m, for: 1m, count: 4 }
  - { type: apiserver-pause, at: 9m59s, for: 1h }
`
    expect(errorsOf(text)).toEqual([
      `s.yaml:9:49: faults[0].nodes[1]: "node-3" is not a node of the cluster (node-0 … node-2)`,
      `s.yaml:9:57: faults[0].nodes[2]: "web-1" is not a node of the cluster (node-0 … node-2)`,
      "s.yaml:10:49: faults[1].count: 4 nodes, but the cluster has 3"
    ])
  })

  it("checks the sections against each other", () => {
    const text = `${head}phases: []
cluster: { nodes: 3 }
eviction: { node: { name: node-2, memory: 4Gi }, pods: [] }
`
    expect(errorsOf(text)).toEqual([
      's.yaml:7:27: eviction.node.name: "node-2" is a node of the cluster (its node agent owns it); the eviction node needs a name of its own'
    ])
    const noCluster = `${head}phases: []
faults: [{ type: apiserver-pause, at: 1m, for: 10s }]
scheduler: { batches: [{ count: 1 }] }
`
    expect(errorsOf(noCluster)).toEqual([
      's.yaml:6:9: faults: faults act on a simulated cluster; add a "cluster" section',
      's.yaml:7:12: scheduler: "nodes" is required without a "cluster" section (the scheduler needs nodes to place pods on)'
    ])
    const clusterThresholds = `${head}phases: []
thresholds:
  "latency{metric:api_call}": ["p(99) < 1s"]
  "apf_rejected{priority_level:node-high}": ["count == 0"]
`
    expect(errorsOf(clusterThresholds)).toEqual([
      's.yaml:7:3: thresholds["latency{metric:api_call}"]: no series has metric "api_call"',
      's.yaml:8:45: thresholds["apf_rejected{priority_level:node-high}"]: apf_rejected judges a simulated cluster\'s result; add a "cluster" section'
    ])
  })

  it("refuses registry faults the cluster's images section cannot act on (the cluster run's own rule)", () => {
    const noImages = `${head}phases: []
cluster: { nodes: 3 }
faults:
  - { type: registry-outage, registry: registry.example, at: 0s, for: 1m }
  - { type: expire-registry-credentials, registry: registry.example, at: 2m }
  - { type: apiserver-pause, at: 1m, for: 10s }
`
    expect(errorsOf(noImages)).toEqual([
      's.yaml:8:13: faults[0].type: "registry-outage" needs cluster.images (the registries and images it acts on)',
      's.yaml:9:13: faults[1].type: "expire-registry-credentials" needs cluster.images (the registries and images it acts on)'
    ])
    const wrongHost = `${head}phases: []
cluster:
  nodes: 3
  images:
    registries: [{ host: registry.example, requiresAuth: true }, { host: open.example }]
    images: [{ name: registry.example/app:1, layers: [{ digest: sha256:a, size: 1Mi }] }]
    pods: [registry.example/app:1]
faults:
  - { type: registry-outage, registry: registry.exampel, at: 0s, for: 1m }
  - { type: expire-registry-credentials, registry: open.example, at: 2m }
  - { type: expire-registry-credentials, registry: registry.example, at: 2m }
`
    expect(errorsOf(wrongHost)).toEqual([
      's.yaml:13:40: faults[0].registry: "registry.exampel" is not a registry of cluster.images.registries ("registry.example", "open.example")',
      's.yaml:14:52: faults[1].registry: "open.example" does not require credentials (requiresAuth), so expiring them changes nothing'
    ])
  })

  it("refuses a YAML alias bomb and nesting past the stack without throwing", () => {
    const levels = ["a", "b", "c", "d", "e", "f", "g", "h"]
    const bomb =
      `${head}phases: []\nlol0: &lol0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n` +
      levels.map((_, i) => `lol${i + 1}: &lol${i + 1} [${Array(9).fill(`*lol${i}`).join(", ")}]`).join("\n") +
      "\n"
    expect(errorsOf(bomb)).toEqual(["s.yaml: YAML: Excessive alias count indicates a resource exhaustion attack"])
    const deep = `${head}phases: ${"[".repeat(20_000)}${"]".repeat(20_000)}\n`
    const deepErrors = errorsOf(deep)
    expect(deepErrors.length).toBeGreaterThan(0)
    for (const e of deepErrors) expect(e).toMatch(/^s\.yaml:5:\d+: YAML: /)
  })
})

