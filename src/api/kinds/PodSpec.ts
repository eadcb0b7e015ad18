/**
 * A pod spec's validation, for pods and for the pod templates of workloads: the part of 1.26 `ValidatePodSpec`
 * and `ValidatePodTemplateSpec` (`kubernetes/kubernetes: pkg/apis/core/validation/validation.go`) that stock
 * manifests meet, with upstream's field paths, order and texts:
 *
 * - containers (`validateContainers`): at least one; then init containers (`validateInitContainers`). Each
 *   container (`validateContainerCommon`): a name that is a DNS-1123 label, an image, its ports (a name that is an
 *   IANA service name and unique in the container, a containerPort and hostPort in 1–65535, a protocol of TCP, UDP
 *   or SCTP), a known imagePullPolicy. Names are unique across containers and init containers; an init container
 *   has no lifecycle or probes.
 * - the pod's own fields: restartPolicy, dnsPolicy, nodeSelector (as labels), serviceAccountName, nodeName,
 *   activeDeadlineSeconds (1 to 2^31 − 1), hostname and subdomain (DNS labels), priorityClassName.
 *
 * Left out (docs/limits.md): volumes and mounts, env, resources, probes' handlers, security contexts, affinity,
 * tolerations, topology spread, DNS config. Enumerations a client leaves out are the server's defaults
 * (`PodDefaults.ts`), so only a value set is checked (upstream validates after defaulting). Written into one list,
 * nothing made for a field that passes: every pod a controller creates comes through here.
 */
import { duplicate, type FieldError, forbidden, invalid, notSupported, required } from "../FieldError.js"
import { isRecord } from "../Object.js"
import { isDNS1123Label, maxLenError, nameIsDNSSubdomain, validateAnnotations, validateLabels } from "./Names.js"

type Rec = Record<string, unknown>

const rec = (v: unknown): Rec => (isRecord(v) ? v : {})
const items = (v: unknown): ReadonlyArray<unknown> => (Array.isArray(v) ? v : [])
const str = (v: unknown): string => (typeof v === "string" ? v : "")
/** A string enumeration as the decoder leaves it; "" and absent are both "not set" (defaulted). */
const setValue = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined)

const maxInt32 = 2 ** 31 - 1

/** `IsValidPortNum`. */
const portNumErrors = (port: number): ReadonlyArray<string> => (port >= 1 && port <= 65535 ? [] : ["must be between 1 and 65535, inclusive"])

/** `IsValidPortName`: an IANA_SVC_NAME, at most 15 lowercase alphanumerics and single hyphens with a letter. */
export const portNameErrors = (name: string): ReadonlyArray<string> => {
  const errs: string[] = []
  if (name.length > 15) errs.push(maxLenError(15))
  if (!/^[-a-z0-9]+$/.test(name)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
  if (!/[a-z]/.test(name)) errs.push("must contain at least one letter (a-z)")
  if (name.includes("--")) errs.push("must not contain consecutive hyphens")
  if (name.length > 0 && (name.startsWith("-") || name.endsWith("-"))) errs.push("must not begin or end with a hyphen")
  return errs
}

const portProtocols = ["SCTP", "TCP", "UDP"]
const pullPolicies = ["Always", "IfNotPresent", "Never"]
const restartPolicies = ["Always", "OnFailure", "Never"]
const dnsPolicies = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]

/** `validateContainerPorts`. */
const checkPorts = (ports: unknown, path: string, errs: FieldError[]): void => {
  const list = items(ports)
  if (list.length === 0) return
  const names = new Set<string>()
  list.forEach((p, i) => {
    const port = rec(p)
    const at = `${path}[${i}]`
    const name = str(port.name)
    if (name !== "") {
      const msgs = portNameErrors(name)
      for (const m of msgs) errs.push(invalid(`${at}.name`, name, m))
      if (msgs.length === 0) {
        if (names.has(name)) errs.push(duplicate(`${at}.name`, name))
        else names.add(name)
      }
    }
    const containerPort = typeof port.containerPort === "number" ? port.containerPort : 0
    if (containerPort === 0) errs.push(required(`${at}.containerPort`))
    else for (const m of portNumErrors(containerPort)) errs.push(invalid(`${at}.containerPort`, containerPort, m))
    const hostPort = typeof port.hostPort === "number" ? port.hostPort : 0
    if (hostPort !== 0) for (const m of portNumErrors(hostPort)) errs.push(invalid(`${at}.hostPort`, hostPort, m))
    const protocol = setValue(port.protocol)
    if (protocol !== undefined && !portProtocols.includes(protocol)) errs.push(notSupported(`${at}.protocol`, protocol, portProtocols))
  })
}

/** `validateContainerCommon`: name, image, ports, pull policy. */
const checkContainer = (c: Rec, path: string, errs: FieldError[]): void => {
  const name = str(c.name)
  if (name === "") errs.push(required(`${path}.name`))
  else for (const m of isDNS1123Label(name)) errs.push(invalid(`${path}.name`, name, m))
  if (str(c.image) === "") errs.push(required(`${path}.image`))
  checkPorts(c.ports, `${path}.ports`, errs)
  const pull = setValue(c.imagePullPolicy)
  if (pull !== undefined && !pullPolicies.includes(pull)) errs.push(notSupported(`${path}.imagePullPolicy`, pull, pullPolicies))
}

const initForbidden = ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"] as const

/** `validateContainers` then `validateInitContainers`: names unique across both lists. */
const checkContainers = (spec: Rec, path: string, errs: FieldError[]): void => {
  const containers = items(spec.containers)
  const names = new Set<string>()
  if (containers.length === 0) errs.push(required(`${path}.containers`))
  else
    containers.forEach((c, i) => {
      const at = `${path}.containers[${i}]`
      const container = rec(c)
      checkContainer(container, at, errs)
      const name = str(container.name)
      if (names.has(name)) errs.push(duplicate(`${at}.name`, name))
      else names.add(name)
    })
  items(spec.initContainers).forEach((c, i) => {
    const at = `${path}.initContainers[${i}]`
    const container = rec(c)
    checkContainer(container, at, errs)
    const name = str(container.name)
    if (names.has(name)) errs.push(duplicate(`${at}.name`, name))
    else if (name !== "") names.add(name)
    for (const f of initForbidden) if (container[f] !== undefined && container[f] !== null) errs.push(forbidden(`${at}.${f}`, "may not be set for init containers"))
  })
}

const checkEnum = (value: unknown, path: string, supported: ReadonlyArray<string>, errs: FieldError[]): void => {
  const v = setValue(value)
  if (v !== undefined && !supported.includes(v)) errs.push(notSupported(path, v, supported))
}

const checkSubdomainName = (value: unknown, path: string, errs: FieldError[]): void => {
  const v = str(value)
  if (v !== "") for (const m of nameIsDNSSubdomain(v, false)) errs.push(invalid(path, v, m))
}

const checkLabelName = (value: unknown, path: string, errs: FieldError[]): void => {
  const v = str(value)
  if (v !== "") for (const m of isDNS1123Label(v)) errs.push(invalid(path, v, m))
}

/** `ValidatePodSpec` (the rules listed above) of the spec at `path` (`spec`, `spec.template.spec`), into `errs`. */
export const checkPodSpec = (podSpec: unknown, path: string, errs: FieldError[]): void => {
  const spec = rec(podSpec)
  checkContainers(spec, path, errs)
  checkEnum(spec.restartPolicy, `${path}.restartPolicy`, restartPolicies, errs)
  checkEnum(spec.dnsPolicy, `${path}.dnsPolicy`, dnsPolicies, errs)
  if (spec.nodeSelector !== undefined) errs.push(...validateLabels(spec.nodeSelector, `${path}.nodeSelector`))
  checkSubdomainName(spec.serviceAccountName, `${path}.serviceAccountName`, errs)
  checkSubdomainName(spec.nodeName, `${path}.nodeName`, errs)
  const deadline = spec.activeDeadlineSeconds
  if (typeof deadline === "number" && (deadline < 1 || deadline > maxInt32))
    errs.push(invalid(`${path}.activeDeadlineSeconds`, deadline, `must be between 1 and ${maxInt32}, inclusive`))
  checkLabelName(spec.hostname, `${path}.hostname`, errs)
  checkLabelName(spec.subdomain, `${path}.subdomain`, errs)
  checkSubdomainName(spec.priorityClassName, `${path}.priorityClassName`, errs)
}

/**
 * A pod's own spec on create (`validatePodMetadataAndSpec` and `ValidatePodCreate`): the pod spec, then what only
 * pods (not templates) must meet — images without surrounding whitespace — and no ephemeral containers on create.
 */
export const checkPodCreateSpec = (podSpec: unknown, errs: FieldError[]): void => {
  checkPodSpec(podSpec, "spec", errs)
  checkImageWhitespace(podSpec, errs)
  const spec = rec(podSpec)
  if (items(spec.ephemeralContainers).length > 0) errs.push(forbidden("spec.ephemeralContainers", "cannot be set on create"))
}

/** `validateContainersOnlyForPod` of containers and init containers: no leading or trailing whitespace in images. */
export const checkImageWhitespace = (podSpec: unknown, errs: FieldError[]): void => {
  const spec = rec(podSpec)
  for (const list of ["containers", "initContainers"] as const)
    items(spec[list]).forEach((c, i) => {
      const image = str(rec(c).image)
      if (image.trim().length !== image.length) errs.push(invalid(`spec.${list}[${i}].image`, image, "must not have leading or trailing whitespace"))
    })
}

/**
 * `ValidatePodTemplateSpec` of the template at `path` (`spec.template`): its labels and annotations (at
 * `spec.template.labels` — upstream's path, without `metadata`), then its spec as a pod spec.
 */
export const checkPodTemplateSpec = (template: unknown, path: string, errs: FieldError[]): void => {
  const t = rec(template)
  const meta = rec(t.metadata)
  if (meta.labels !== undefined) errs.push(...validateLabels(meta.labels, `${path}.labels`))
  if (meta.annotations !== undefined) errs.push(...validateAnnotations(meta.annotations, `${path}.annotations`))
  checkPodSpec(t.spec, `${path}.spec`, errs)
  if (items(rec(t.spec).ephemeralContainers).length > 0) errs.push(forbidden(`${path}.spec.ephemeralContainers`, "ephemeral containers not allowed in pod template"))
}
