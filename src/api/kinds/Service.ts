/**
 * `v1` Service: upstream's defaults (`pkg/apis/core/v1/defaults.go` `SetDefaults_Service`, 1.26) and validation
 * (`pkg/apis/core/validation/validation.go` `ValidateService`, `ValidateServiceUpdate`,
 * `ValidateServiceClusterIPsRelatedFields`, `validateUpgradeDowngradeClusterIPs`), in upstream's order and words.
 * What the registry allocates (cluster IPs, node ports) is `ServiceAllocation.ts`. Pure.
 */
import { isIP } from "node:net"
import { duplicate, type FieldError, forbidden, GoPrinted, invalid, noFieldErrors, notSupported, required } from "../FieldError.js"
import { goQuote } from "../go/Quote.js"
import { isRecord, type KObject } from "../Object.js"
import { serviceSchema } from "./BuiltinSchemas.js"
import type { KindRules } from "./KindRules.js"
import { isDNS1123Label, isDNS1123Subdomain, nameIsDNS1035Label, validateLabels } from "./Names.js"

export interface ServicePortView {
  readonly name?: string
  readonly protocol?: string
  readonly port?: number
  readonly targetPort?: number | string
  readonly nodePort?: number
}

export interface ServiceSpecView {
  readonly ports?: ReadonlyArray<ServicePortView>
  readonly selector?: Readonly<Record<string, string>>
  readonly clusterIP?: string
  readonly clusterIPs?: ReadonlyArray<string>
  readonly type?: string
  readonly sessionAffinity?: string
  readonly externalName?: string
  readonly externalTrafficPolicy?: string
  readonly sessionAffinityConfig?: { readonly clientIP?: { readonly timeoutSeconds?: number } }
  readonly ipFamilies?: ReadonlyArray<string>
  readonly ipFamilyPolicy?: string
  readonly allocateLoadBalancerNodePorts?: boolean
  readonly internalTrafficPolicy?: string
}

export const specOf = (svc: KObject): ServiceSpecView => (isRecord(svc.spec) ? (svc.spec as ServiceSpecView) : {})

/** `ClusterIPNone`: a headless Service. */
export const clusterIPNone = "None"

export const isHeadless = (spec: ServiceSpecView): boolean => spec.clusterIP === clusterIPNone || spec.clusterIPs?.[0] === clusterIPNone

/** Types that take a cluster IP (`needsClusterIP`): every one but ExternalName. */
export const needsClusterIP = (spec: ServiceSpecView): boolean => spec.type !== "ExternalName"

/** Types that take node ports (`needsNodePort`). */
export const needsNodePort = (spec: ServiceSpecView): boolean => spec.type === "NodePort" || spec.type === "LoadBalancer"

/** `DefaultClientIPServiceAffinitySeconds`: three hours. */
const defaultAffinitySeconds = 10_800

/** ServiceSpec's JSON fields in upstream's order (`types.go`), so a defaulted spec reads as upstream writes it. */
export const serviceSpecOrder = [
  "ports",
  "selector",
  "clusterIP",
  "clusterIPs",
  "type",
  "externalIPs",
  "sessionAffinity",
  "loadBalancerIP",
  "loadBalancerSourceRanges",
  "externalName",
  "externalTrafficPolicy",
  "healthCheckNodePort",
  "publishNotReadyAddresses",
  "sessionAffinityConfig",
  "ipFamilies",
  "ipFamilyPolicy",
  "allocateLoadBalancerNodePorts",
  "loadBalancerClass",
  "internalTrafficPolicy"
]
export const servicePortOrder = ["name", "protocol", "appProtocol", "port", "targetPort", "nodePort"]

/** `fields` in the order `order` names them, then any others as they came. */
export const inOrder = (fields: Readonly<Record<string, unknown>>, order: ReadonlyArray<string>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const k of order) if (fields[k] !== undefined) out[k] = fields[k]
  for (const k of Object.keys(fields)) if (!(k in out) && fields[k] !== undefined) out[k] = fields[k]
  return out
}

/** `SetDefaults_Service`: affinity, type, each port's protocol and target port, the traffic policies. */
export const defaultService = (svc: KObject): KObject => {
  const spec: Record<string, unknown> = { ...specOf(svc) }
  if (!spec.sessionAffinity) spec.sessionAffinity = "None"
  if (spec.sessionAffinity === "None") delete spec.sessionAffinityConfig
  if (spec.sessionAffinity === "ClientIP") {
    const config = spec.sessionAffinityConfig as ServiceSpecView["sessionAffinityConfig"] | undefined
    if (typeof config?.clientIP?.timeoutSeconds !== "number") spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: defaultAffinitySeconds } }
  }
  if (!spec.type) spec.type = "ClusterIP"
  if (Array.isArray(spec.ports))
    spec.ports = (spec.ports as ReadonlyArray<unknown>).map((p) => {
      if (!isRecord(p)) return p
      const port: Record<string, unknown> = { ...p }
      if (!port.protocol) port.protocol = "TCP"
      if (port.targetPort === undefined || port.targetPort === null || port.targetPort === 0 || port.targetPort === "") port.targetPort = port.port
      return inOrder(port, servicePortOrder)
    })
  const type = spec.type
  if ((type === "NodePort" || type === "LoadBalancer") && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = "Cluster"
  if (spec.internalTrafficPolicy === undefined && (type === "NodePort" || type === "LoadBalancer" || type === "ClusterIP")) spec.internalTrafficPolicy = "Cluster"
  if (type === "LoadBalancer" && spec.allocateLoadBalancerNodePorts === undefined) spec.allocateLoadBalancerNodePorts = true
  return { ...svc, spec: inOrder(spec, serviceSpecOrder) }
}

const supportedProtocols = ["SCTP", "TCP", "UDP"]
const supportedAffinities = ["ClientIP", "None"]
const supportedTypes = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]
const supportedFamilies = ["IPv4", "IPv6"]
const supportedFamilyPolicies = ["PreferDualStack", "RequireDualStack", "SingleStack"]

/** `IsValidPortNum`. */
const portNumberErrors = (n: unknown): ReadonlyArray<string> =>
  typeof n === "number" && Number.isInteger(n) && n >= 1 && n <= 65535 ? [] : ["must be between 1 and 65535, inclusive"]

/** `IsValidPortName`: an IANA service name. */
const portNameErrors = (name: string): ReadonlyArray<string> => {
  const errs: string[] = []
  if (name.length > 15) errs.push("must be no more than 15 characters")
  if (!/^[-a-z0-9]+$/.test(name)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
  if (!/[a-z]/.test(name)) errs.push("must contain at least one letter (a-z)")
  if (name.includes("--")) errs.push("must not contain consecutive hyphens")
  if (name.startsWith("-") || name.endsWith("-")) errs.push("must not begin or end with a hyphen")
  return errs
}

/** `IsValidIP` (1.26's text). */
export const ipErrors = (ip: string): ReadonlyArray<string> => (isIP(ip) === 0 ? ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"] : [])

/** `ValidatePortNumOrName` of a target port. */
const targetPortErrors = (target: unknown, field: string): ReadonlyArray<FieldError> => {
  if (typeof target === "string") return portNameErrors(target).map((m) => invalid(field, target, m))
  return portNumberErrors(target).map((m) => invalid(field, new GoPrinted(String(target)), m))
}

/** `validateServicePort`. */
const validatePort = (p: ServicePortView, requireName: boolean, names: Set<string>, path: string): ReadonlyArray<FieldError> => {
  const errs: FieldError[] = []
  const name = p.name ?? ""
  if (requireName && name === "") errs.push(required(`${path}.name`))
  else if (name !== "") {
    for (const m of isDNS1123Label(name)) errs.push(invalid(`${path}.name`, name, m))
    if (names.has(name)) errs.push(duplicate(`${path}.name`, name))
    else names.add(name)
  }
  for (const m of portNumberErrors(p.port ?? 0)) errs.push(invalid(`${path}.port`, new GoPrinted(String(p.port ?? 0)), m))
  if (!p.protocol) errs.push(required(`${path}.protocol`))
  else if (!supportedProtocols.includes(p.protocol)) errs.push(notSupported(`${path}.protocol`, p.protocol, supportedProtocols))
  errs.push(...targetPortErrors(p.targetPort ?? 0, `${path}.targetPort`))
  return errs
}

/** `ValidateServiceClusterIPsRelatedFields` (also the registry's loose check before it allocates). */
export const validateClusterIPFields = (spec: ServiceSpecView): ReadonlyArray<FieldError> => {
  if (spec.type === "ExternalName") return noFieldErrors
  const errs: FieldError[] = []
  const clusterIPs = spec.clusterIPs ?? []
  if (spec.clusterIP) {
    if (clusterIPs.length === 0) errs.push(required("spec.clusterIPs"))
    else if (clusterIPs[0] !== spec.clusterIP) errs.push(invalid("spec.clusterIPs", clusterIPs, "first value must match `clusterIP`"))
  } else if (clusterIPs.length !== 0) errs.push(invalid("spec.clusterIPs", clusterIPs, "must be empty when `clusterIP` is not specified"))
  const seen = new Set<string>()
  ;(spec.ipFamilies ?? []).forEach((family, i) => {
    if (!supportedFamilies.includes(family)) errs.push(notSupported(`spec.ipFamilies[${i}]`, family, supportedFamilies))
    if (seen.has(family)) errs.push(duplicate(`spec.ipFamilies[${i}]`, family))
    seen.add(family)
  })
  if (spec.ipFamilyPolicy !== undefined && !supportedFamilyPolicies.includes(spec.ipFamilyPolicy))
    errs.push(notSupported("spec.ipFamilyPolicy", spec.ipFamilyPolicy, supportedFamilyPolicies))
  let badIPs = false
  clusterIPs.forEach((ip, i) => {
    if (i === 0 && ip === clusterIPNone) {
      if (clusterIPs.length > 1) {
        badIPs = true
        errs.push(invalid("spec.clusterIPs", clusterIPs, "'None' must be the first and only value"))
      }
      return
    }
    for (const m of ipErrors(ip)) {
      badIPs = true
      errs.push(invalid(`spec.clusterIPs[${i}]`, ip, m))
    }
  })
  if (clusterIPs.length > 2) errs.push(invalid("spec.clusterIPs", clusterIPs, "may only hold up to 2 values"))
  if (badIPs) return errs
  if (clusterIPs.length > 1 && isIP(clusterIPs[0]!) === isIP(clusterIPs[1]!))
    errs.push(invalid("spec.clusterIPs", clusterIPs, "may specify no more than one IP for each IP family"))
  if (!isHeadless(spec))
    clusterIPs.forEach((ip, i) => {
      const family = spec.ipFamilies?.[i]
      if (family === "IPv4" && isIP(ip) === 6) errs.push(invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``))
      if (family === "IPv6" && isIP(ip) !== 6) errs.push(invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``))
    })
  return errs
}

/** Go's `%#v` of a `core.ServicePort` key of the duplicate-port check (protocol and port only). */
const portKey = (p: ServicePortView): GoPrinted =>
  new GoPrinted(
    `core.ServicePort{Name:"", Protocol:${goQuote(p.protocol ?? "")}, AppProtocol:(*string)(nil), Port:${p.port ?? 0}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`
  )

/** `ValidateService` beyond ObjectMeta, in upstream's order (the rules of fields clustersim serves). */
export const validateService = (svc: KObject): ReadonlyArray<FieldError> => {
  const spec = specOf(svc)
  const errs: FieldError[] = []
  const ports = (spec.ports ?? []).map((p) => (isRecord(p) ? p : {})) as ReadonlyArray<ServicePortView>
  const headless = isHeadless(spec)
  if (ports.length === 0 && !headless && spec.type !== "ExternalName") errs.push(required("spec.ports"))
  switch (spec.type) {
    case "LoadBalancer":
    case "NodePort":
      if (headless) errs.push(invalid("spec.clusterIPs[0]", spec.clusterIPs?.[0] ?? clusterIPNone, `may not be set to 'None' for ${spec.type} services`))
      break
    case "ExternalName": {
      if ((spec.clusterIPs ?? []).length > 0) errs.push(forbidden("spec.clusterIPs", "may not be set for ExternalName services"))
      if ((spec.ipFamilies ?? []).length > 0) errs.push(forbidden("spec.ipFamilies", "may not be set for ExternalName services"))
      if (spec.ipFamilyPolicy !== undefined) errs.push(forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"))
      // a CNAME may end in a dot (fully qualified)
      const cname = (spec.externalName ?? "").replace(/\.$/, "")
      if (cname.length > 0) for (const m of isDNS1123Subdomain(cname)) errs.push(invalid("spec.externalName", cname, m))
      else errs.push(required("spec.externalName"))
    }
  }
  const names = new Set<string>()
  ports.forEach((p, i) => errs.push(...validatePort(p, ports.length > 1, names, `spec.ports[${i}]`)))
  if (spec.selector !== undefined) errs.push(...validateLabels(spec.selector, "spec.selector"))
  if (!spec.sessionAffinity) errs.push(required("spec.sessionAffinity"))
  else if (!supportedAffinities.includes(spec.sessionAffinity)) errs.push(notSupported("spec.sessionAffinity", spec.sessionAffinity, supportedAffinities))
  if (spec.sessionAffinity === "None" && spec.sessionAffinityConfig !== undefined)
    errs.push(forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None"))
  errs.push(...validateClusterIPFields(spec))
  if (!spec.type) errs.push(required("spec.type"))
  else if (!supportedTypes.includes(spec.type)) errs.push(notSupported("spec.type", spec.type, supportedTypes))
  if (spec.type === "ClusterIP")
    ports.forEach((p, i) => {
      if (p.nodePort !== undefined && p.nodePort !== 0) errs.push(forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"))
    })
  const nodePorts = new Set<string>()
  ports.forEach((p, i) => {
    if (p.nodePort === undefined || p.nodePort === 0) return
    const key = `${p.protocol}/${p.nodePort}`
    if (nodePorts.has(key)) errs.push(duplicate(`spec.ports[${i}].nodePort`, new GoPrinted(String(p.nodePort))))
    nodePorts.add(key)
  })
  const servicePorts = new Set<string>()
  ports.forEach((p, i) => {
    const key = `${p.protocol}/${p.port}`
    if (servicePorts.has(key)) errs.push(duplicate(`spec.ports[${i}]`, portKey(p)))
    servicePorts.add(key)
  })
  return errs
}

/** `validateUpgradeDowngradeClusterIPs`: the primary cluster IP never changes (single-stack: the only one). */
const clusterIPChanges = (spec: ServiceSpecView, old: ServiceSpecView): ReadonlyArray<FieldError> => {
  if (spec.type === "ExternalName" || old.type === "ExternalName") return noFieldErrors
  if (isHeadless(spec) && isHeadless(old)) return noFieldErrors
  const now = spec.clusterIPs ?? []
  const before = old.clusterIPs ?? []
  const errs: FieldError[] = []
  if (before.length === now.length) before.forEach((ip, i) => ip !== now[i] && errs.push(invalid(`spec.clusterIPs[${i}]`, now, "may not change once set")))
  else if (before.length > now.length) {
    if (now.length === 0) errs.push(invalid("spec.clusterIPs[0]", now, "primary clusterIP can not be unset"))
    if (before.length > 0 && now.length > 0 && now[0] !== before[0]) errs.push(invalid("spec.clusterIPs[0]", now, "may not change once set"))
    if (now.length === 1 && spec.ipFamilyPolicy !== "SingleStack")
      errs.push(invalid("spec.clusterIPs[0]", now, "`ipFamilyPolicy` must be set to 'SingleStack' when releasing the secondary clusterIP"))
  } else if (before.length > 0 && now[0] !== before[0]) errs.push(invalid("spec.clusterIPs[0]", now, "may not change once set"))
  return errs
}

/** `ValidateServiceUpdate` beyond ObjectMeta: the cluster IPs stay, then the create rules. */
export const validateServiceUpdate = (svc: KObject, old: KObject): ReadonlyArray<FieldError> => {
  const changed = clusterIPChanges(specOf(svc), specOf(old))
  const rules = validateService(svc)
  return changed.length === 0 ? rules : [...changed, ...rules]
}

export const serviceRules: KindRules = {
  schema: serviceSchema,
  nameRule: nameIsDNS1035Label,
  defaults: defaultService,
  validateCreate: validateService,
  validateUpdate: validateServiceUpdate
}
