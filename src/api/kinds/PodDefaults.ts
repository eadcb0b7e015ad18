/**
 * A pod as upstream stores it after create: the defaults of `pkg/apis/core/v1/defaults.go` (`SetDefaults_PodSpec`,
 * `SetDefaults_Container`, `SetDefaults_ContainerPort`, `SetDefaults_Pod`), the status the pod strategy's `PrepareForCreate` sets
 * (phase `Pending`, the QoS class), and what the default admission plugins add: `priority: 0` and
 * `preemptionPolicy` (Priority), the not-ready/unreachable NoExecute tolerations for 300 s
 * (DefaultTolerationSeconds, with the spec's taint names). Fields the client set are kept.
 */
import { isRecord, type KObject } from "../Object.js"
import { extendable } from "../internal/V8Shapes.js"
import { TaintKeys } from "../WellKnown.js"
const defaultTolerationSeconds = 300

type Rec = Record<string, unknown>

const rec = (v: unknown): Rec => (isRecord(v) ? v : {})

/** `SetDefaults_Container`: an image without a tag, or tagged `latest`, is pulled Always. */
const imagePullPolicy = (image: string): string => {
  const withoutDigest = image.split("@")[0]!
  const lastSlash = withoutDigest.lastIndexOf("/")
  const colon = withoutDigest.indexOf(":", lastSlash + 1)
  const tag = colon >= 0 ? withoutDigest.slice(colon + 1) : ""
  return image.includes("@") ? "IfNotPresent" : tag === "" || tag === "latest" ? "Always" : "IfNotPresent"
}

const defaultContainer = (c: unknown): unknown => {
  if (!isRecord(c)) return c
  const out: Rec = { ...extendable, ...c }
  if (Array.isArray(c.ports)) out.ports = c.ports.map((p) => (isRecord(p) && p.protocol === undefined ? { ...extendable, ...p, protocol: "TCP" } : p))
  if (out.resources === undefined) out.resources = {}
  if (out.terminationMessagePath === undefined) out.terminationMessagePath = "/dev/termination-log"
  if (out.terminationMessagePolicy === undefined) out.terminationMessagePolicy = "File"
  if (out.imagePullPolicy === undefined && typeof c.image === "string") out.imagePullPolicy = imagePullPolicy(c.image)
  return out
}

/** DefaultTolerationSeconds: a pod that does not tolerate the taint already gets `Exists`/NoExecute/300 s. */
const withDefaultTolerations = (tolerations: ReadonlyArray<unknown>): ReadonlyArray<unknown> => {
  const tolerates = (key: string) =>
    tolerations.some((t) => {
      const r = rec(t)
      return (r.key === key || (r.key === undefined && r.operator === "Exists")) && (r.effect === undefined || r.effect === "" || r.effect === "NoExecute")
    })
  const added = [TaintKeys.notReady, TaintKeys.unreachable]
    .filter((key) => !tolerates(key))
    .map((key) => ({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: defaultTolerationSeconds }))
  return added.length === 0 ? tolerations : [...tolerations, ...added]
}

const quantityKeys = (containers: ReadonlyArray<unknown>, field: "requests" | "limits") =>
  containers.map((c) => rec(rec(rec(c).resources)[field]))

/** `qos.GetPodQOS`, for the cpu and memory of the (init) containers. */
const qosClass = (spec: Rec): string => {
  const containers = [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers : [])]
  const requests = quantityKeys(containers, "requests")
  const limits = quantityKeys(containers, "limits")
  const relevant = (r: Rec) => ["cpu", "memory"].filter((k) => r[k] !== undefined && r[k] !== "0")
  if (requests.every((r) => relevant(r).length === 0) && limits.every((l) => relevant(l).length === 0)) return "BestEffort"
  const guaranteed = containers.every((_, i) => {
    const l = limits[i]!
    const r = requests[i]!
    return ["cpu", "memory"].every((k) => l[k] !== undefined && (r[k] === undefined || String(r[k]) === String(l[k])))
  })
  return guaranteed ? "Guaranteed" : "Burstable"
}

/** `SetDefaults_Pod`: requests default to limits, key by key (pods only, not templates). */
const requestsFromLimits = (c: unknown): unknown => {
  if (!isRecord(c)) return c
  const resources = rec(c.resources)
  if (!isRecord(resources.limits)) return c
  const requests = rec(resources.requests)
  const missing = Object.keys(resources.limits).filter((k) => requests[k] === undefined)
  if (missing.length === 0) return c
  return { ...extendable, ...c, resources: { ...extendable, ...resources, requests: { ...resources.limits, ...requests } } }
}

/**
 * `SetDefaults_PodSpec` with its containers' defaults: every pod spec, pod templates of workloads included
 * (upstream keeps the pod-only defaults in `SetDefaults_Pod` so they do not materialize in templates).
 * Idempotent (a stored spec is returned as it is).
 */
export const defaultPodSpec = (spec: Rec): Rec => {
  const out: Rec = { ...extendable, ...spec }
  out.containers = Array.isArray(spec.containers) ? spec.containers.map(defaultContainer) : spec.containers
  if (Array.isArray(spec.initContainers)) out.initContainers = spec.initContainers.map(defaultContainer)
  if (out.restartPolicy === undefined) out.restartPolicy = "Always"
  if (out.terminationGracePeriodSeconds === undefined) out.terminationGracePeriodSeconds = 30
  if (out.dnsPolicy === undefined) out.dnsPolicy = "ClusterFirst"
  if (out.securityContext === undefined) out.securityContext = {}
  if (out.schedulerName === undefined) out.schedulerName = "default-scheduler"
  return out
}

/** A workload's `spec.template` defaulted as every PodTemplateSpec is upstream (`defaultPodSpec`). */
export const defaultPodTemplateOf = (workload: KObject): KObject => {
  if (!isRecord(workload.spec) || !isRecord(workload.spec.template)) return workload
  const template = workload.spec.template
  return { ...extendable, ...workload, spec: { ...extendable, ...workload.spec, template: { ...extendable, ...template, spec: defaultPodSpec(rec(template.spec)) } } }
}

/** `SetDefaults_PodSpec` and `SetDefaults_Pod`: the defaults every decoded pod gets (no admission plugins). */
const defaultDecodedPodSpec = (podSpec: unknown): Rec => {
  const spec = defaultPodSpec(rec(podSpec))
  spec.containers = Array.isArray(spec.containers) ? spec.containers.map(requestsFromLimits) : spec.containers
  if (Array.isArray(spec.initContainers)) spec.initContainers = spec.initContainers.map(requestsFromLimits)
  if (spec.enableServiceLinks === undefined) spec.enableServiceLinks = true
  return spec
}

/**
 * A pod sent in an update, defaulted as the decoder defaults it before validation compares it with the stored
 * one (so a body without the server's defaults is not a change). Kept as it was when nothing is missing.
 */
export const defaultPodOnUpdate = (pod: KObject): KObject => {
  if (!isRecord(pod.spec)) return pod
  const spec = defaultDecodedPodSpec(pod.spec)
  return { ...extendable, ...pod, spec }
}

/** A pod being created, as upstream stores it (see the module comment). */
export const defaultPodOnCreate = (pod: KObject): KObject => {
  const spec = defaultDecodedPodSpec(pod.spec)
  spec.tolerations = withDefaultTolerations(Array.isArray(spec.tolerations) ? spec.tolerations : [])
  if (spec.priority === undefined) spec.priority = 0
  if (spec.preemptionPolicy === undefined) spec.preemptionPolicy = "PreemptLowerPriority"
  // PrepareForCreate replaces the status the client sent.
  return { ...extendable, ...pod, spec, status: { phase: "Pending", qosClass: qosClass(spec) } }
}
