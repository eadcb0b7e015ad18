/**
 * What the Service registry does before validation (`pkg/registry/core/service/storage`: `beginCreate`,
 * `beginUpdate`; `alloc.go` `initIPFamilyFields`, `allocClusterIPs`, `initNodePorts`, `updateNodePorts`;
 * `patchAllocatedValues`, `normalizeClusterIPs`), for a single-stack IPv4 cluster (docs/stock-clients.md
 * "Services"): a cluster IP from the service CIDR 10.96.0.0/12 (kubeadm's and kind's `--service-cluster-ip-range`),
 * node ports from 30000-32767 (`--service-node-port-range`'s default). Upstream picks a random free value in the
 * range's upper band (`ServiceIPStaticSubrange`: the lower band is kept for values asked for); here the lowest free
 * one of that band, then of the lower band: the same requests get the same addresses. Pure: what is taken is the
 * caller's (`simulator/apiserver/ServiceAddresses.ts`, from the stored Services).
 */
import { Either } from "effect"
import { type FieldError, invalid } from "../FieldError.js"
import { ipv4Text, parseIPv4 } from "../IPv4.js"
import type { KObject } from "../Object.js"
import { clusterIPNone, inOrder, serviceSpecOrder, servicePortOrder, isHeadless, needsClusterIP, needsNodePort, specOf, type ServicePortView, type ServiceSpecView, validateClusterIPFields } from "./Service.js"

/** The service CIDR (`--service-cluster-ip-range`) and the node port range (`--service-node-port-range`). */
export const serviceCIDR = "10.96.0.0/12"
export const nodePortRange = "30000-32767"

/** A range of values to allocate from: `first` … `first + size - 1`, the upper band (dynamic values) from `first + offset`. */
interface Range {
  readonly first: number
  readonly size: number
  readonly offset: number
}

/** `calculateRangeOffset` (ServiceIPStaticSubrange): min(max(16, size/16), 256) for IPs; min(max(16, size/32), 128) for ports. */
const bandOffset = (size: number, step: number, max: number): number => (size <= 16 ? 0 : Math.min(Math.max(16, Math.floor(size / step)), max))

/** 10.96.0.0/12 without its network and broadcast addresses. */
const ipRange: Range = (() => {
  const [net, bits] = serviceCIDR.split("/")
  const cidrSize = 2 ** (32 - Number(bits))
  return { first: parseIPv4(net!)! + 1, size: cidrSize - 2, offset: bandOffset(cidrSize, 16, 256) }
})()

const portRange: Range = (() => {
  const [low, high] = nodePortRange.split("-").map(Number)
  const size = high! - low! + 1
  return { first: low!, size, offset: bandOffset(size, 32, 128) }
})()

/** The lowest free value of the upper band, else of the lower; undefined when the range is full. */
const lowestFree = (range: Range, taken: (value: number) => boolean): number | undefined => {
  for (let i = range.offset; i < range.size; i++) if (!taken(range.first + i)) return range.first + i
  for (let i = 0; i < range.offset; i++) if (!taken(range.first + i)) return range.first + i
  return undefined
}

const inRange = (range: Range, value: number): boolean => value >= range.first && value < range.first + range.size

/** What the stored Services hold: cluster IPs (as text) and node ports (health-check ports too). */
export interface TakenAddresses {
  readonly clusterIPs: ReadonlySet<string>
  readonly nodePorts: ReadonlySet<number>
}

/** Why nothing was allocated: a 422 with these causes, or a 500 (a full range) with this message. */
export type AllocationRefusal = { readonly _tag: "Invalid"; readonly errors: ReadonlyArray<FieldError> } | { readonly _tag: "Internal"; readonly message: string }

const refusedAs = (errors: ReadonlyArray<FieldError>): Either.Either<never, AllocationRefusal> => Either.left({ _tag: "Invalid", errors })

/** The cluster IPs and node ports `spec` holds. */
export const addressesOf = (spec: ServiceSpecView): { readonly clusterIPs: ReadonlyArray<string>; readonly nodePorts: ReadonlyArray<number> } => ({
  clusterIPs: (spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])).filter((ip) => ip !== clusterIPNone && ip !== ""),
  nodePorts: [
    ...(spec.ports ?? []).map((p) => p.nodePort ?? 0),
    ...((spec as { healthCheckNodePort?: number }).healthCheckNodePort !== undefined ? [(spec as { healthCheckNodePort?: number }).healthCheckNodePort!] : [])
  ].filter((p) => p > 0)
})

type MutableSpec = { -readonly [K in keyof ServiceSpecView]: ServiceSpecView[K] } & { healthCheckNodePort?: number }

/** `normalizeClusterIPs`: keeps `clusterIP` and `clusterIPs` in step, as an old client (singular only) expects. */
const normalizeClusterIPs = (spec: MutableSpec, old: ServiceSpecView | undefined): void => {
  if (old === undefined) {
    if (spec.clusterIP && (spec.clusterIPs ?? []).length === 0) spec.clusterIPs = [spec.clusterIP]
    return
  }
  const sameIPs = (a: ReadonlyArray<string> | undefined, b: ReadonlyArray<string> | undefined) =>
    (a ?? []).length === (b ?? []).length && (a ?? []).every((x, i) => x === b![i])
  if ((old.clusterIPs ?? []).length > 0 && (spec.clusterIPs ?? []).length === 0 && old.clusterIP === spec.clusterIP) spec.clusterIPs = old.clusterIPs
  if (old.clusterIP !== spec.clusterIP) {
    if (old.clusterIP && !spec.clusterIP) {
      if (sameIPs(old.clusterIPs, spec.clusterIPs)) delete spec.clusterIPs
    } else if (sameIPs(old.clusterIPs, spec.clusterIPs)) spec.clusterIPs = spec.clusterIP ? [spec.clusterIP] : []
  }
}

/** `patchAllocatedValues`: what was allocated stays when an update leaves it out (a `kubectl replace` of the manifest). */
const patchAllocatedValues = (spec: MutableSpec, old: ServiceSpecView & { healthCheckNodePort?: number }): void => {
  if (needsClusterIP(old) && needsClusterIP(spec)) {
    if (!spec.clusterIP) spec.clusterIP = old.clusterIP
    if ((spec.clusterIPs ?? []).length === 0 && (old.clusterIPs ?? []).length > 0) spec.clusterIPs = old.clusterIPs
  }
  if (needsNodePort(old) && needsNodePort(spec)) {
    const used = new Set((spec.ports ?? []).map((p) => p.nodePort ?? 0).filter((p) => p > 0))
    const byName = new Map((old.ports ?? []).map((p) => [p.name ?? "", p.nodePort ?? 0] as const))
    spec.ports = (spec.ports ?? []).map((p) => {
      if ((p.nodePort ?? 0) !== 0) return p
      const np = byName.get(p.name ?? "") ?? 0
      if (np === 0 || used.has(np)) return p
      used.add(np)
      return inOrder({ ...p, nodePort: np }, servicePortOrder) as ServicePortView
    })
  }
  if (needsHealthCheck(old) && needsHealthCheck(spec) && !spec.healthCheckNodePort && old.healthCheckNodePort) spec.healthCheckNodePort = old.healthCheckNodePort
}

/** `NeedsHealthCheck`: a LoadBalancer with `externalTrafficPolicy: Local`. */
const needsHealthCheck = (spec: ServiceSpecView): boolean => spec.type === "LoadBalancer" && spec.externalTrafficPolicy === "Local"

/** `initIPFamilyFields` on a single-stack IPv4 cluster: the policy and families a Service gets, or why it cannot. */
const initIPFamilies = (spec: MutableSpec, old: ServiceSpecView | undefined): ReadonlyArray<FieldError> => {
  if (spec.type === "ExternalName") return []
  if (spec.ipFamilyPolicy === undefined)
    spec.ipFamilyPolicy = old?.ipFamilyPolicy ?? (spec.clusterIP === clusterIPNone && Object.keys(spec.selector ?? {}).length === 0 ? "RequireDualStack" : "SingleStack")
  const loose = validateClusterIPFields(spec)
  if (loose.length > 0) return loose
  const errs: FieldError[] = []
  if (spec.ipFamilyPolicy === "SingleStack") {
    if ((spec.clusterIPs ?? []).length === 2) errs.push(invalid("spec.ipFamilyPolicy", spec.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"))
    if ((spec.ipFamilies ?? []).length === 2) errs.push(invalid("spec.ipFamilyPolicy", spec.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"))
  }
  const families = [...(spec.ipFamilies ?? [])]
  const clusterIPs = spec.clusterIPs ?? []
  for (let i = 0; i < clusterIPs.length; i++) {
    const ip = clusterIPs[i]!
    if (ip === clusterIPNone) break
    const family = ip.includes(":") ? "IPv6" : "IPv4"
    if (i >= families.length) {
      if (family === "IPv6") errs.push(invalid(`spec.clusterIPs[${i}]`, clusterIPs, "IPv6 is not configured on this cluster"))
      else families.push(family)
    }
  }
  if (errs.length > 0) return errs
  if (spec.clusterIP === clusterIPNone && Object.keys(spec.selector ?? {}).length === 0) {
    // headless and selectorless: families for whatever endpoints it is given, both unless single-stack
    if (families.length === 0) families.push("IPv4")
    if (families.length < 2 && spec.ipFamilyPolicy !== "SingleStack") families.push(families[0] === "IPv4" ? "IPv6" : "IPv4")
    spec.ipFamilies = families
    return []
  }
  if (spec.ipFamilyPolicy === "RequireDualStack") errs.push(invalid("spec.ipFamilyPolicy", spec.ipFamilyPolicy, "this cluster is not configured for dual-stack services"))
  families.forEach((family, i) => family !== "IPv4" && errs.push(invalid(`spec.ipFamilies[${i}]`, family, "not configured on this cluster")))
  if (errs.length > 0) return errs
  spec.ipFamilies = families.length === 0 ? ["IPv4"] : families
  return []
}

/** The cluster IP a Service asks for, else the lowest free one; the IPs it held before are its own. */
const allocateClusterIP = (spec: MutableSpec, taken: TakenAddresses, own: ReadonlyArray<string>): Either.Either<void, AllocationRefusal> => {
  const requested = spec.clusterIPs?.[0] ?? ""
  const isTaken = (ip: string) => taken.clusterIPs.has(ip) && !own.includes(ip)
  if (requested === "") {
    const next = lowestFree(ipRange, (n) => isTaken(ipv4Text(n)))
    if (next === undefined) return Either.left({ _tag: "Internal", message: "failed to allocate a serviceIP: range is full" })
    spec.clusterIP = ipv4Text(next)
    spec.clusterIPs = [spec.clusterIP]
    return Either.void
  }
  const n = parseIPv4(requested)
  const problem =
    n === undefined || !inRange(ipRange, n)
      ? `the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${serviceCIDR}`
      : isTaken(requested)
        ? "provided IP is already allocated"
        : undefined
  if (problem !== undefined) return refusedAs([invalid("spec.clusterIPs", spec.clusterIPs ?? [], `failed to allocate IP ${requested}: ${problem}`)])
  spec.clusterIP = requested
  return Either.void
}

/** `portallocator`'s refusal of a port asked for, if any. */
const portProblem = (port: number, isTaken: (p: number) => boolean): string | undefined =>
  !inRange(portRange, port)
    ? `provided port is not in the valid range. The range of valid ports is ${nodePortRange}`
    : isTaken(port)
      ? "provided port is already allocated"
      : undefined

const fullPorts: AllocationRefusal = { _tag: "Internal", message: "failed to allocate a nodePort: range is full" }

/**
 * `initNodePorts` / `updateNodePorts`: each port's node port — the one asked for if free, one port number's again
 * for a second protocol, else the lowest free — and a health-check port for a `Local` LoadBalancer.
 */
const allocateNodePorts = (spec: MutableSpec, taken: TakenAddresses, own: ReadonlyArray<number>): Either.Either<void, AllocationRefusal> => {
  const mine = new Set<number>()
  const isTaken = (p: number) => mine.has(p) || (taken.nodePorts.has(p) && !own.includes(p))
  const allocateAll = spec.type === "NodePort" || (spec.type === "LoadBalancer" && spec.allocateLoadBalancerNodePorts !== false)
  const byServicePort = new Map<number, number>()
  const ports: Array<ServicePortView> = []
  const list = spec.ports ?? []
  for (let i = 0; i < list.length; i++) {
    const p = list[i]!
    const asked = p.nodePort ?? 0
    if (asked === 0 && !allocateAll) {
      ports.push(p)
      continue
    }
    const shared = byServicePort.get(p.port ?? 0)
    let nodePort: number
    if (asked !== 0 && asked !== shared) {
      // a port the service held before is its own: kept without a check
      const problem = own.includes(asked) && !mine.has(asked) ? undefined : portProblem(asked, isTaken)
      if (problem !== undefined) return refusedAs([invalid(`spec.ports[${i}].nodePort`, asked, problem)])
      nodePort = asked
    } else if (shared !== undefined) nodePort = shared
    else {
      const next = lowestFree(portRange, isTaken)
      if (next === undefined) return Either.left(fullPorts)
      nodePort = next
    }
    mine.add(nodePort)
    byServicePort.set(p.port ?? 0, nodePort)
    ports.push(asked === nodePort ? p : (inOrder({ ...p, nodePort }, servicePortOrder) as ServicePortView))
  }
  spec.ports = ports
  if (needsHealthCheck(spec)) {
    const asked = spec.healthCheckNodePort ?? 0
    if (asked !== 0) {
      const problem = own.includes(asked) ? undefined : portProblem(asked, isTaken)
      if (problem !== undefined) return Either.left({ _tag: "Internal", message: `failed to allocate requested HealthCheck NodePort ${asked}: ${problem}` })
    } else {
      const next = lowestFree(portRange, isTaken)
      if (next === undefined) return Either.left(fullPorts)
      spec.healthCheckNodePort = next
    }
  }
  return Either.void
}

const withSpec = (svc: KObject, spec: MutableSpec): KObject => ({ ...svc, spec: inOrder(spec as Record<string, unknown>, serviceSpecOrder) })

/** `beginCreate`: families, a cluster IP (none for ExternalName and headless), node ports. */
export const allocateCreate = (svc: KObject, taken: TakenAddresses): Either.Either<KObject, AllocationRefusal> => {
  const spec: MutableSpec = { ...specOf(svc) }
  normalizeClusterIPs(spec, undefined)
  const families = initIPFamilies(spec, undefined)
  if (families.length > 0) return refusedAs(families)
  if (needsClusterIP(spec) && !isHeadless(spec)) {
    const ip = allocateClusterIP(spec, taken, [])
    if (Either.isLeft(ip)) return Either.left(ip.left)
  }
  if (needsNodePort(spec)) {
    const ports = allocateNodePorts(spec, taken, [])
    if (Either.isLeft(ports)) return Either.left(ports.left)
  }
  return Either.right(withSpec(svc, spec))
}

/**
 * `beginUpdate`: what was allocated kept when left out, a cluster IP for a Service that stops being ExternalName,
 * node ports for one that needs them; the old Service's own addresses are not taken from it. A changed cluster IP
 * is validation's to refuse (`may not change once set`).
 */
export const allocateUpdate = (svc: KObject, old: KObject, taken: TakenAddresses): Either.Either<KObject, AllocationRefusal> => {
  const before = specOf(old)
  const spec: MutableSpec = { ...specOf(svc) }
  patchAllocatedValues(spec, before)
  normalizeClusterIPs(spec, before)
  const families = initIPFamilies(spec, before)
  if (families.length > 0) return refusedAs(families)
  const own = addressesOf(before)
  if (before.type === "ExternalName" && needsClusterIP(spec) && !isHeadless(spec)) {
    const ip = allocateClusterIP(spec, taken, [])
    if (Either.isLeft(ip)) return Either.left(ip.left)
  }
  if (needsNodePort(spec)) {
    const ports = allocateNodePorts(spec, taken, own.nodePorts)
    if (Either.isLeft(ports)) return Either.left(ports.left)
  }
  return Either.right(withSpec(svc, spec))
}
