/**
 * Seeded hostile requests for the API server: real routes with wrong verbs, bad query parameters, broken
 * and oversized bodies, deep nesting, wrong types in every envelope field, odd media types, watches.
 * Pure: the same seed gives the same requests.
 */
import { resourceTypes, type ResourceType } from "../../src/api/Resources.js"
import type { SeededRandomService } from "../../simulator/kernel/SeededRandom.js"
import { nextAttack } from "./attacks.js"

export interface FuzzRequest {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body?: string | Buffer
  /** A watch: the client reads the headers, then hangs up. */
  readonly watch: boolean
}

type Pick = <A>(items: ReadonlyArray<A>) => A

const namespaces = ["default", "fuzz", "kube-system", "", "UPPER", "a".repeat(70), "%2e%2e", "ns%00", "ünï"]
const names = ["a", "fuzz-1", "fuzz-2", "", "-bad-", "a".repeat(300), "x%2Fy", "%zz", "名前", "..", "a.b", "0"]
const methods = ["GET", "GET", "GET", "POST", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "PROPFIND"]
const contentTypes = [
  "application/json",
  "application/json",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
  "application/merge-patch+json",
  "application/json-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
  "text/plain",
  "application/json; charset=utf-16",
  "garbage/x",
  ""
]
const accepts = [
  "application/json",
  "*/*",
  "application/vnd.kubernetes.protobuf",
  "application/vnd.kubernetes.protobuf, application/json",
  "application/json;as=Table;v=v1;g=meta.k8s.io",
  "application/yaml",
  "text/html",
  "application/json;q=0",
  ";;;,,,"
]
const strange: ReadonlyArray<unknown> = [
  null, true, 0, -1, 1e300, 2 ** 63, 1.5, "", "x", "💥", [], {}, [1, "a"], { a: { b: [] } }, "\u0000", "a".repeat(2000)
]

const deep = (depth: number, array: boolean): unknown => {
  let v: unknown = 1
  for (let i = 0; i < depth; i++) v = array ? [v] : { k: v }
  return v
}

const envelopeFields = [
  "name", "generateName", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
  "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers", "managedFields", "selfLink"
]

/** A plausible object of the kind, then maybe broken in one place. */
const objectBody = (rng: SeededRandomService, pick: Pick, resource: ResourceType, name: string): unknown => {
  const metadata: Record<string, unknown> = { name, labels: { app: "fuzz" } }
  const obj: Record<string, unknown> = { apiVersion: resource.apiVersion, kind: resource.kind, metadata }
  if (resource.kind === "ConfigMap") obj.data = { k: "v" }
  if (resource.kind === "Lease") obj.spec = { holderIdentity: "h", leaseDurationSeconds: 10 }
  if (resource.kind === "Pod") obj.spec = { containers: [{ name: "c", image: "i" }] }
  if (resource.kind === "Deployment")
    obj.spec = { replicas: 1, selector: { matchLabels: { app: "fuzz" } }, template: { metadata: { labels: { app: "fuzz" } }, spec: { containers: [{ name: "c", image: "i" }] } } }
  if (resource.kind === "Event") Object.assign(obj, { eventTime: "2024-01-01T00:00:00.000000Z", reason: "R", action: "A", reportingController: "c", reportingInstance: "i", type: "Normal" })
  switch (rng.intBetween(0, 10)) {
    case 0:
      metadata[pick(envelopeFields)] = pick(strange)
      break
    case 1:
      obj[pick(["spec", "data", "status", "apiVersion", "kind", "metadata", "extra", "名前"])] = pick(strange)
      break
    case 2:
      obj[pick(["spec", "data", "extra"])] = deep(pick([10, 500, 997, 1001, 3000]), rng.next() < 0.5)
      break
    case 3:
      metadata.annotations = { [pick(["a", "ñ", "名前", "\u0000", "a".repeat(400)])]: pick(["v", "a".repeat(300_000)]) }
      break
    case 4:
      metadata.ownerReferences = [{ apiVersion: "v1", kind: "X", name: "o", uid: pick(["u", 5, null]), controller: pick([true, "yes", 1]) }]
      break
    default:
      break
  }
  return obj
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64url")

const queryParams = (rng: SeededRandomService, pick: Pick): string[] => {
  const params: string[] = []
  const n = rng.intBetween(0, 4)
  for (let i = 0; i < n; i++) {
    const param = pick([
      () => `limit=${pick(["1", "0", "-1", "500", "x", "1e3", "99999999999999999999"])}`,
      () => `continue=${pick([b64('{"v":"meta.platform/v1","rv":1,"start":"a\\u0000"}'), b64("[".repeat(rng.intBetween(1, 12_000))), "%%%", "eyJ2Ijo", b64('{"rv":"x"}')])}`,
      () => `labelSelector=${encodeURIComponent(pick(["app=fuzz", "app in (a,b)", "!app", "a==b,c!=d", "((", "a=" + "b".repeat(100), "x notin ()"]))}`,
      () => `fieldSelector=${encodeURIComponent(pick(["metadata.name=a", "spec.nodeName=", "bogus=1", "metadata.name==a,metadata.namespace!=b", "=", "a"]))}`,
      // A resourceVersion from the future waits 3 s for the server to catch up (then 504): rare, to keep runs short.
      () => `resourceVersion=${rng.next() < 0.1 ? pick(["99999999999", "18446744073709551616"]) : pick(["0", "1", "", "-5", "abc", "1e3"])}`,
      () => `resourceVersionMatch=${pick(["Exact", "NotOlderThan", "Bogus", ""])}`,
      () => `timeoutSeconds=${pick(["1", "0", "-1", "x", "1e9"])}`,
      () => `dryRun=${pick(["All", "", "Bogus"])}`,
      () => `fieldValidation=${pick(["Strict", "Warn", "Ignore", "x"])}`,
      () => `fieldManager=${pick(["m", "a".repeat(200)])}`,
      () => `propagationPolicy=${pick(["Foreground", "Background", "Orphan", "x"])}`,
      () => `gracePeriodSeconds=${pick(["0", "-1", "30", "x"])}`,
      () => `orphanDependents=${pick(["true", "false", "x"])}`,
      () => `allowWatchBookmarks=${pick(["true", "x"])}`,
      () => `pretty=${pick(["true", "1"])}`,
      () => `%zz=${pick(["1", "%"])}`
    ])()
    params.push(param)
  }
  return params
}

const patchBody = (rng: SeededRandomService, pick: Pick): unknown =>
  pick([
    () => ({ metadata: { labels: { app: pick(strange) } } }),
    () => [{ op: pick(["add", "remove", "replace", "move", "copy", "test", "bogus"]), path: pick(["/metadata/labels/a", "/spec", "", "/a/b/c/d", "/metadata/finalizers/-"]), value: pick(strange) }],
    () => ({ spec: deep(pick([50, 997, 1001, 3000]), rng.next() < 0.5) }),
    () => pick(strange)
  ])()

/** Of every hundred requests, about three are one of the known attacks (attacks.ts). */
const attackShare = 0.03

/** The next request from the generator's seeded stream. */
export const nextRequest = (rng: SeededRandomService): FuzzRequest => {
  if (rng.next() < attackShare) return { ...nextAttack(rng), watch: false }
  const pick: Pick = (items) => items[rng.intBetween(0, items.length)]!
  const resource = pick(resourceTypes)
  const prefix = resource.group ? `/apis/${resource.group}/${resource.version}` : `/api/${resource.version}`
  // Mostly real namespaces and valid names, so that requests get past routing into the handlers.
  const ns = rng.next() < 0.6 ? pick(["fuzz", "default"]) : pick(namespaces)
  const name = rng.next() < 0.5 ? `fuzz-${rng.intBetween(0, 20)}` : pick(names)
  const method = pick(methods)
  const shape = method === "POST" && rng.next() < 0.8 ? 3 : rng.intBetween(0, 12)
  let path: string
  if (shape === 0) path = `${prefix}/${resource.plural}`
  else if (shape === 1) path = pick(["/api", "/apis", "/api/v1", "/apis/apps", "/apis/nope/v1/x", "/version", "/healthz", "/openapi/v2", "/", "//api//v1", "/api/v1/namespaces/default/configmaps/a/b/c/d"])
  else if (shape === 2) path = `${prefix}/namespaces/${ns}/${resource.plural}/${name}/${pick([...resource.subresources, "status", "scale", "binding", "nope", "finalize"])}`
  else if (!resource.namespaced) path = shape < 6 ? `${prefix}/${resource.plural}` : `${prefix}/${resource.plural}/${name}`
  else path = shape < 6 ? `${prefix}/namespaces/${ns}/${resource.plural}` : `${prefix}/namespaces/${ns}/${resource.plural}/${name}`
  const watch = method === "GET" && rng.next() < 0.05
  const params = queryParams(rng, pick)
  if (watch) params.push("watch=1", "timeoutSeconds=1")
  const headers: Record<string, string> = {}
  if (rng.next() < 0.4) headers.accept = pick(accepts)
  let body: string | Buffer | undefined
  if (method === "POST" || method === "PUT" || method === "PATCH" || (method === "DELETE" && rng.next() < 0.3)) {
    headers["content-type"] = method === "PATCH" && rng.next() < 0.7 ? pick(contentTypes.slice(4, 8)) : pick(contentTypes)
    const value = method === "PATCH" ? patchBody(rng, pick) : method === "DELETE" ? { propagationPolicy: pick(strange), dryRun: pick(strange) } : objectBody(rng, pick, resource, name)
    const text = JSON.stringify(value)
    const mangle = rng.intBetween(0, 12)
    body =
      mangle === 0 ? text.slice(0, rng.intBetween(0, text.length))
      : mangle === 1 ? Buffer.from(Array.from({ length: rng.intBetween(0, 200) }, () => rng.intBetween(0, 256)))
      : mangle === 2 ? text.replace("{", '{"metadata":{"name":"dup"},')
      : mangle === 3 ? ""
      : mangle === 4 ? `{"metadata":{"name":"deep"},"spec":${"[".repeat(8000)}${"]".repeat(8000)}}`
      : text
  }
  const query = params.length > 0 ? `?${params.join("&")}` : ""
  return { method, path: path + query, headers, ...(body !== undefined ? { body } : {}), watch }
}
