/**
 * The 1.26 default API Priority and Fairness configuration: the mandatory and suggested PriorityLevelConfigurations
 * and FlowSchemas of kube-apiserver (`staging/src/k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go`;
 * values in docs/apf.md). Rules are reduced to what the simulated requests carry: subjects by user or group,
 * resource rules by verb, resource and namespace.
 */

export interface QueuingSettings {
  readonly queues: number
  readonly handSize: number
  readonly queueLengthLimit: number
}

export interface PriorityLevel {
  readonly name: string
  /** `Exempt` levels are never limited; `Limited` ones get seats by their share. */
  readonly type: "Exempt" | "Limited"
  readonly nominalConcurrencyShares: number
  /** Queue when full, or (`undefined`) reject at once (catch-all's `LimitResponse: Reject`). */
  readonly queuing: QueuingSettings | undefined
}

const queuing = (queues: number, handSize: number, queueLengthLimit: number): QueuingSettings => ({ queues, handSize, queueLengthLimit })

export const priorityLevels: ReadonlyArray<PriorityLevel> = [
  { name: "exempt", type: "Exempt", nominalConcurrencyShares: 0, queuing: undefined },
  { name: "system", type: "Limited", nominalConcurrencyShares: 30, queuing: queuing(64, 6, 50) },
  { name: "node-high", type: "Limited", nominalConcurrencyShares: 40, queuing: queuing(64, 6, 50) },
  { name: "leader-election", type: "Limited", nominalConcurrencyShares: 10, queuing: queuing(16, 4, 50) },
  { name: "workload-high", type: "Limited", nominalConcurrencyShares: 40, queuing: queuing(128, 6, 50) },
  { name: "workload-low", type: "Limited", nominalConcurrencyShares: 100, queuing: queuing(128, 6, 50) },
  { name: "global-default", type: "Limited", nominalConcurrencyShares: 20, queuing: queuing(128, 6, 50) },
  { name: "catch-all", type: "Limited", nominalConcurrencyShares: 5, queuing: undefined }
]

/** Who is asking and for what: the attributes a FlowSchema matches on. */
export interface RequestAttributes {
  readonly user: string
  readonly groups: ReadonlyArray<string>
  /** Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection. */
  readonly verb: string
  /** Resource plural, with a subresource as `pods/status`. */
  readonly resource: string
  readonly namespace: string | undefined
}

interface ResourceRule {
  readonly verbs: ReadonlyArray<string> | "*"
  readonly resources: ReadonlyArray<string> | "*"
  /** Namespaces, `"*"` for every namespace; `clusterScope` also matches requests without one. */
  readonly namespaces: ReadonlyArray<string> | "*"
  readonly clusterScope: boolean
}

export interface FlowSchema {
  readonly name: string
  readonly priorityLevel: string
  readonly matchingPrecedence: number
  /** How flows are told apart inside the level: by user, by namespace, or not at all. */
  readonly distinguisher: "ByUser" | "ByNamespace" | undefined
  readonly users: ReadonlyArray<string>
  readonly groups: ReadonlyArray<string>
  readonly rules: ReadonlyArray<ResourceRule>
}

const everything: ResourceRule = { verbs: "*", resources: "*", namespaces: "*", clusterScope: true }
const electionVerbs = ["get", "create", "update"]

export const flowSchemas: ReadonlyArray<FlowSchema> = [
  { name: "exempt", priorityLevel: "exempt", matchingPrecedence: 1, distinguisher: undefined, users: [], groups: ["system:masters"], rules: [everything] },
  {
    name: "system-leader-election",
    priorityLevel: "leader-election",
    matchingPrecedence: 100,
    distinguisher: "ByUser",
    users: ["system:kube-controller-manager", "system:kube-scheduler"],
    groups: [],
    rules: [
      { verbs: electionVerbs, resources: ["endpoints", "configmaps"], namespaces: ["kube-system"], clusterScope: false },
      { verbs: electionVerbs, resources: ["leases"], namespaces: "*", clusterScope: false }
    ]
  },
  {
    name: "system-node-high",
    priorityLevel: "node-high",
    matchingPrecedence: 400,
    distinguisher: "ByUser",
    users: [],
    groups: ["system:nodes"],
    rules: [
      { verbs: "*", resources: ["nodes", "nodes/status"], namespaces: "*", clusterScope: true },
      { verbs: "*", resources: ["leases"], namespaces: "*", clusterScope: false }
    ]
  },
  { name: "system-nodes", priorityLevel: "system", matchingPrecedence: 500, distinguisher: "ByUser", users: [], groups: ["system:nodes"], rules: [everything] },
  { name: "kube-controller-manager", priorityLevel: "workload-high", matchingPrecedence: 800, distinguisher: "ByNamespace", users: ["system:kube-controller-manager"], groups: [], rules: [everything] },
  { name: "kube-scheduler", priorityLevel: "workload-high", matchingPrecedence: 800, distinguisher: "ByNamespace", users: ["system:kube-scheduler"], groups: [], rules: [everything] },
  { name: "service-accounts", priorityLevel: "workload-low", matchingPrecedence: 9000, distinguisher: "ByUser", users: [], groups: ["system:serviceaccounts"], rules: [everything] },
  {
    name: "global-default",
    priorityLevel: "global-default",
    matchingPrecedence: 9900,
    distinguisher: "ByUser",
    users: [],
    groups: ["system:unauthenticated", "system:authenticated"],
    rules: [everything]
  },
  {
    name: "catch-all",
    priorityLevel: "catch-all",
    matchingPrecedence: 10000,
    distinguisher: "ByUser",
    users: [],
    groups: ["system:unauthenticated", "system:authenticated"],
    rules: [everything]
  }
]

const ruleMatches = (rule: ResourceRule, r: RequestAttributes): boolean =>
  (rule.verbs === "*" || rule.verbs.includes(r.verb)) &&
  (rule.resources === "*" || rule.resources.includes(r.resource)) &&
  (r.namespace === undefined ? rule.clusterScope : rule.namespaces === "*" || rule.namespaces.includes(r.namespace))

/** The first schema by matching precedence whose subjects and rules match (upstream's classification). */
export const classify = (schemas: ReadonlyArray<FlowSchema>, r: RequestAttributes): FlowSchema | undefined =>
  schemas.find((s) => (s.users.includes(r.user) || s.groups.some((g) => r.groups.includes(g))) && s.rules.some((rule) => ruleMatches(rule, r)))

/** The users some bootstrap FlowSchema names as a subject. */
const namedUsers: ReadonlySet<string> = new Set(flowSchemas.flatMap((s) => s.users))

/**
 * Whether `user`'s requests are classified by the user's groups alone: no FlowSchema names the user, so `classify`
 * matches the same schema for every such user with the same groups (only the flow, by user, differs). Node agents'
 * users (`system:node:…`) are: their requests share one classification per kind (`BookedClient.ts`).
 */
export const classifiedByGroups = (user: string): boolean => !namedUsers.has(user)

/** Where a request goes: its FlowSchema (catch-all when none matches) and its flow inside the schema's level. */
export interface Classification {
  readonly schema: FlowSchema
  readonly flow: string
  /** The schema's priority level, as its index in `priorityLevels`. */
  readonly level: number
}

/**
 * The classification of `r` by the bootstrap schemas, which never change during a run: a request made once and
 * sent many times (a node agent's lease update) carries it instead of being classified on every send.
 */
export const classification = (r: RequestAttributes): Classification => {
  // every authenticated request matches catch-all at the latest; one matching nothing is catch-all's too
  const schema = classify(flowSchemas, r) ?? flowSchemas[flowSchemas.length - 1]!
  return { schema, flow: flowOf(schema, r), level: levelIndex.get(schema.priorityLevel)! }
}

const levelIndex = new Map(priorityLevels.map((l, i) => [l.name, i]))

/** The flow a request belongs to inside its level: schema plus user or namespace (upstream's flow distinguisher). */
export const flowOf = (schema: FlowSchema, r: RequestAttributes): string =>
  schema.distinguisher === "ByUser" ? `${schema.name}/${r.user}` : schema.distinguisher === "ByNamespace" ? `${schema.name}/${r.namespace ?? ""}` : schema.name
