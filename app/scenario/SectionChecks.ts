/**
 * Cross-section rules of the simulated sections (`cluster`, `faults`, `scheduler`, `eviction`) that a field's own
 * schema cannot say: names the server would refuse once they are put together (a node name is `namePrefix` and
 * an ordinal), references between sections (a fault's or a memory pressure's nodes, a seeded pod's image and its
 * registry), and counts that must fit (seeded pods and the node's pod capacity). Each would otherwise make a run
 * fail late, or quietly do nothing (docs/scenarios.md "What validate checks").
 */
import { initialNamespaces } from "../../src/api/Resources.js"
import { isDNS1123Label, isDNS1123Subdomain, isValidLabelValue } from "../../src/api/kinds/Names.js"
import { hostnameLabel } from "../../src/api/WellKnown.js"
import { cores } from "../../simulator/cluster/ClusterSetup.js"
import { checkNodeAgentSource } from "../../simulator/cluster/NodeAgentSource.js"
import { exchangeApiVersions } from "../../simulator/nodeagent/credentialprovider/CredentialProviderConfig.js"
import { validateCredentialProviderConfig } from "../../simulator/nodeagent/credentialprovider/validate.js"
import { podCapacity } from "../../simulator/nodeagent/NodeStatus.js"
import { validateLeaderElectionConfig } from "../../simulator/leaderelection/LeaderElector.js"
import type { Scenario } from "./Scenario.js"

export interface SectionProblem {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

type Cluster = NonNullable<Scenario["cluster"]>

const defaultNamePrefix = "node-"

/** The names of the cluster's nodes, without listing 100,000 of them. */
const clusterNodes = (cluster: Cluster) => {
  const prefix = cluster.namePrefix ?? defaultNamePrefix
  const has = (name: string) => {
    const index = name.startsWith(prefix) ? name.slice(prefix.length) : ""
    return /^(0|[1-9][0-9]*)$/.test(index) && Number(index) < cluster.nodes
  }
  const text = cluster.nodes === 0 ? "it has none" : cluster.nodes === 1 ? `${prefix}0` : `${prefix}0 … ${prefix}${cluster.nodes - 1}`
  return { prefix, has, text }
}

/** Where a name the server checks fails: upstream's messages (`IsDNS1123Subdomain`, `IsValidLabelValue`), joined. */
const objectNameProblems = (name: string): Array<string> => isDNS1123Subdomain(name)
const labelValueProblems = (name: string): Array<string> => isValidLabelValue(name)

/**
 * A node's name is `<namePrefix><index>`, a DNS-1123 subdomain (upstream `ValidateNodeName`) and the value of its
 * hostname label (`IsValidLabelValue`, at most 63 characters): the first and the longest name are checked.
 */
const namePrefixProblems = (cluster: Cluster): Array<SectionProblem> => {
  const prefix = cluster.namePrefix ?? defaultNamePrefix
  const names = [...new Set([`${prefix}0`, `${prefix}${Math.max(0, cluster.nodes - 1)}`])]
  for (const name of names) {
    const asName = objectNameProblems(name)
    if (asName.length > 0) return [{ path: ["cluster", "namePrefix"], message: `node name "${name}" would be refused: metadata.name: Invalid value: "${name}": ${asName.join(", ")}` }]
    const asLabel = labelValueProblems(name)
    if (asLabel.length > 0) {
      return [{ path: ["cluster", "namePrefix"], message: `node name "${name}" would be refused as the value of its label ${hostnameLabel}: metadata.labels: Invalid value: "${name}": ${asLabel.join(", ")}` }]
    }
  }
  return []
}

const memoryPressureProblems = (cluster: Cluster): Array<SectionProblem> => {
  const nodes = clusterNodes(cluster)
  const podsPerNode = cluster.podsPerNode ?? 0
  return (cluster.memoryPressure ?? []).flatMap((m, i) => {
    const base = ["cluster", "memoryPressure", i]
    const out: Array<SectionProblem> = []
    if (m.nodes.length === 0) out.push({ path: [...base, "nodes"], message: "at least 1 node is required (an empty list puts no node under pressure)" })
    m.nodes.forEach((name, j) => {
      if (!nodes.has(name)) out.push({ path: [...base, "nodes", j], message: `"${name}" is not a node of the cluster (${nodes.text})` })
    })
    // the pressure acts on seeded pod `pod` of each node: one past podsPerNode does not exist
    if (m.pod >= podsPerNode) {
      out.push({
        path: [...base, "pod"],
        message:
          podsPerNode === 0
            ? `pod ${m.pod}, but cluster.podsPerNode is 0: the nodes have no seeded pods to grow`
            : `pod ${m.pod} is past the seeded pods of a node (cluster.podsPerNode ${podsPerNode}: 0 … ${podsPerNode - 1})`
    })
    }
    return out
  })
}

/** A seeded pod's image must be one of `images`, its registry one of `registries`; hosts and names once each. */
const imagesProblems = (cluster: Cluster): Array<SectionProblem> => {
  const images = cluster.images
  if (images === undefined) return []
  const base = ["cluster", "images"]
  const out: Array<SectionProblem> = []
  const hosts = new Set<string>()
  images.registries.forEach((r, i) => {
    if (hosts.has(r.host)) out.push({ path: [...base, "registries", i, "host"], message: `duplicate registry host "${r.host}"` })
    hosts.add(r.host)
  })
  const names = new Set<string>()
  images.images.forEach((image, i) => {
    if (names.has(image.name)) out.push({ path: [...base, "images", i, "name"], message: `duplicate image "${image.name}"` })
    names.add(image.name)
    const registry = registryOf(image.name)
    if (!hosts.has(registry)) out.push({ path: [...base, "images", i, "name"], message: `its registry "${registry}" is not one of cluster.images.registries (${listed(hosts)})` })
  })
  images.pods.forEach((name, i) => {
    if (!names.has(name)) out.push({ path: [...base, "pods", i], message: `"${name}" is not one of cluster.images.images (${listed(names)})` })
  })
  if (images.pods.length === 0 && (cluster.podsPerNode ?? 0) > 0) {
    out.push({ path: [...base, "pods"], message: `at least 1 image is required: the ${cluster.podsPerNode} seeded pods per node run pods[i mod length]` })
  }
  const plugin = images.credentialProvider
  if (plugin !== undefined) {
    // upstream's CredentialProviderConfig validator, on the one provider the section models
    const errors = validateCredentialProviderConfig({
      providers: [{ name: plugin.name, matchImages: plugin.matchImages, defaultCacheDuration: plugin.defaultCacheDuration, apiVersion: exchangeApiVersions[exchangeApiVersions.length - 1]!, args: [], env: [] }]
    })
    for (const e of errors) {
      const field = /^providers\.(\w+): (.*)$/.exec(e.message)
      const name = field?.[1] ?? ""
      const at = name === "matchImages" ? matchImageIndex(plugin.matchImages, field![2]!) : undefined
      out.push({ path: [...base, "credentialProvider", ...(name === "" ? [] : [name]), ...(at === undefined ? [] : [at])], message: field?.[2] ?? e.message })
    }
  }
  return out
}

/** An image's registry: the text before its first `/` (ImagesSpec.ts). */
const registryOf = (image: string): string => image.split("/")[0]!

const listed = (values: ReadonlySet<string>): string => (values.size === 0 ? "none" : [...values].map((v) => `"${v}"`).join(", "))

/** The item of `matchImages` an `Invalid value: "<item>": …` message is about. */
const matchImageIndex = (items: ReadonlyArray<string>, message: string): number | undefined => {
  const i = items.findIndex((m) => message.startsWith(`Invalid value: ${JSON.stringify(m)}:`))
  return i < 0 ? undefined : i
}

/** Seeded pods are bound to their node: past its pod capacity the node agent would refuse them (OutOfpods). */
const podCapacityProblems = (cluster: Cluster, baseDir: string): Array<SectionProblem> => {
  const podsPerNode = cluster.podsPerNode ?? 0
  if (podsPerNode === 0) return []
  const config = checkNodeAgentSource(cluster.nodeAgent, baseDir).config
  // a configuration with errors is reported on its own
  if (config === undefined && cluster.shape?.pods === undefined) return []
  const cpu = cluster.shape?.cpu ?? "4"
  const capacity = cluster.shape?.pods ?? podCapacity(cores(cpu), config!.podsPerCore, config!.maxPods)
  if (podsPerNode <= capacity) return []
  const why =
    cluster.shape?.pods !== undefined
      ? `cluster.shape.pods`
      : config!.podsPerCore > 0 && Math.floor(cores(cpu) * config!.podsPerCore) < config!.maxPods
        ? `${cpu} cores × the node agent's podsPerCore ${config!.podsPerCore}`
        : `the node agent's maxPods`
  return [{ path: ["cluster", "podsPerNode"], message: `${podsPerNode} pods per node, but a node holds ${capacity} (${why})` }]
}

/**
 * A node fault names what the cluster has: its nodes, at most as many as it has (`count` nodes are drawn besides
 * the named ones, so the two together), at least one. (A fault timed after the run's end is allowed: `--set
 * duration=…` shortens a run, its later faults simply do not happen.)
 */
const faultProblems = (cluster: Cluster, faults: NonNullable<Scenario["faults"]>): Array<SectionProblem> => {
  const nodes = clusterNodes(cluster)
  return faults.flatMap((f, i) => {
    if (f.type !== "stop-nodes" && f.type !== "partition") return []
    const out: Array<SectionProblem> = []
    const named = new Set<string>()
    ;(f.nodes ?? []).forEach((name, j) => {
      if (!nodes.has(name)) out.push({ path: ["faults", i, "nodes", j], message: `"${name}" is not a node of the cluster (${nodes.text})` })
      else if (named.has(name)) out.push({ path: ["faults", i, "nodes", j], message: `"${name}" is named twice` })
      named.add(name)
    })
    const count = f.count ?? 0
    if (named.size === 0 && count === 0) {
      out.push({ path: ["faults", i, ...(f.nodes !== undefined ? ["nodes"] : f.count !== undefined ? ["count"] : [])], message: `"${f.type}" needs nodes: give "nodes" (names), "count" (nodes drawn with the seed) or both` })
    } else if (named.size + count > cluster.nodes) {
      out.push({
        path: ["faults", i, "count"],
        message:
          named.size === 0
            ? `${count} nodes, but the cluster has ${cluster.nodes}`
            : `${count} nodes besides the ${named.size} named, but the cluster has ${cluster.nodes} (count is added to the named nodes)`
      })
    }
    return out
  })
}

/** A namespace the run creates or the server starts with; anything else does not exist when pods are created in it. */
const namespaceProblem = (s: Scenario, namespace: string): string | undefined => {
  const label = isDNS1123Label(namespace)
  if (label.length > 0) return `Invalid value: "${namespace}": ${label.join(", ")}`
  const created = s.setup?.namespaces ?? []
  if (initialNamespaces.includes(namespace) || created.includes(namespace)) return undefined
  return `namespace "${namespace}" will not exist: the server starts with ${initialNamespaces.map((n) => `"${n}"`).join(", ")}; add it to setup.namespaces`
}

const schedulerProblems = (s: Scenario): Array<SectionProblem> => {
  const section = s.scheduler
  if (section === undefined) return []
  const out: Array<SectionProblem> = []
  if (section.leaderElect ?? section.replicas > 1) {
    // client-go's NewLeaderElector refuses these; the section would die when its replicas start
    const problem = validateLeaderElectionConfig(section)
    if (problem !== undefined) {
      const field = (["leaseDuration", "renewDeadline", "retryPeriod"] as const).find((f) => problem.startsWith(f)) ?? "leaseDuration"
      out.push({ path: ["scheduler", field], message: problem })
    }
  }
  section.batches.forEach((b, i) => {
    const base = ["scheduler", "batches", i]
    // pod names are `<namePrefix>-<i>`, and namePrefix is their `app` label's value
    const last = `${b.namePrefix}-${Math.max(0, b.count - 1)}`
    const asName = objectNameProblems(last)
    const asLabel = labelValueProblems(b.namePrefix)
    if (asName.length > 0) out.push({ path: [...base, "namePrefix"], message: `pod name "${last}" would be refused: metadata.name: Invalid value: "${last}": ${asName.join(", ")}` })
    else if (asLabel.length > 0) out.push({ path: [...base, "namePrefix"], message: `it is the pods' label app: metadata.labels: Invalid value: "${b.namePrefix}": ${asLabel.join(", ")}` })
    const ns = namespaceProblem(s, b.namespace)
    if (ns !== undefined) out.push({ path: [...base, "namespace"], message: ns })
  })
  return out
}

const evictionProblems = (s: Scenario): Array<SectionProblem> => {
  const section = s.eviction
  if (section === undefined) return []
  const out: Array<SectionProblem> = []
  const name = section.node.name
  const asName = objectNameProblems(name)
  if (asName.length > 0) out.push({ path: ["eviction", "node", "name"], message: `metadata.name: Invalid value: "${name}": ${asName.join(", ")}` })
  else if (s.cluster !== undefined && clusterNodes(s.cluster).has(name)) {
    out.push({ path: ["eviction", "node", "name"], message: `"${name}" is a node of the cluster (its node agent owns it); the eviction node needs a name of its own` })
  }
  const pods = new Set<string>()
  section.pods.forEach((p, i) => {
    const base = ["eviction", "pods", i]
    const podName = objectNameProblems(p.name)
    if (podName.length > 0) out.push({ path: [...base, "name"], message: `metadata.name: Invalid value: "${p.name}": ${podName.join(", ")}` })
    else if (pods.has(`${p.namespace}/${p.name}`)) out.push({ path: [...base, "name"], message: `duplicate pod "${p.namespace}/${p.name}"` })
    pods.add(`${p.namespace}/${p.name}`)
    const ns = namespaceProblem(s, p.namespace)
    if (ns !== undefined) out.push({ path: [...base, "namespace"], message: ns })
  })
  return out
}

/** Every problem of the simulated sections; `baseDir` resolves `cluster.nodeAgent.file`. */
export const sectionProblems = (s: Scenario, baseDir: string): Array<SectionProblem> => [
  ...(s.cluster !== undefined ? [...namePrefixProblems(s.cluster), ...memoryPressureProblems(s.cluster), ...imagesProblems(s.cluster), ...podCapacityProblems(s.cluster, baseDir)] : []),
  ...(s.cluster !== undefined && s.faults !== undefined ? faultProblems(s.cluster, s.faults) : []),
  ...schedulerProblems(s),
  ...evictionProblems(s)
]
