/**
 * The target's names for the spec's renamed groups and namespaces (docs/upstream-names.md), found by
 * discovery: a clustersim server serves `coordination.platform` and `events.platform`, a real kube-apiserver
 * `coordination.k8s.io` and `events.k8s.io` with the `kube-` system namespaces. The HTTP client translates at
 * the wire, both ways, so every part of clustersim speaks the spec's names and the same scenario runs
 * unchanged against either server.
 */
import { isRecord, type KObject, type WatchEvent } from "../api/Object.js"
import { extendable } from "../api/internal/V8Shapes.js"
import { resourceTypes, type ResourceType } from "../api/Resources.js"
import { nodeLeaseNamespace, publicNamespace, systemNamespace } from "../api/WellKnown.js"

export interface ApiNames {
  /** False when the target serves the spec's names: nothing to translate. */
  readonly translates: boolean
  /** The resource as the target names it (its group). */
  readonly resource: (resource: ResourceType) => ResourceType
  readonly namespaceToTarget: (namespace: string) => string
  readonly namespaceFromTarget: (namespace: string) => string
  readonly apiVersionToTarget: (apiVersion: string) => string
  readonly apiVersionFromTarget: (apiVersion: string) => string
}

const same = <T>(x: T) => x

export const specNames: ApiNames = {
  translates: false,
  resource: same,
  namespaceToTarget: same,
  namespaceFromTarget: same,
  apiVersionToTarget: same,
  apiVersionFromTarget: same
}

/** Upstream's names of the spec's renamed system namespaces (spec README "Naming"). */
const upstreamNamespaces: ReadonlyArray<readonly [spec: string, upstream: string]> = [
  [systemNamespace, "kube-system"],
  [publicNamespace, "kube-public"],
  [nodeLeaseNamespace, "kube-node-lease"]
]

const platformSuffix = /\.platform$/

/** The spec's renamed groups: only these have an upstream `<x>.k8s.io` twin (`metrics.k8s.io` is no rename). */
const specGroups: ReadonlySet<string> = new Set(resourceTypes.map((r) => r.group).filter((g) => platformSuffix.test(g)))

/**
 * The names of a target from the group names its `/apis` lists: each of the spec's `<x>.platform` groups the target
 * lacks but whose `<x>.k8s.io` it serves is renamed, and then the system namespaces are upstream's too.
 */
export const apiNamesFromGroups = (served: ReadonlyArray<string>): ApiNames => {
  const servedSet = new Set(served)
  const groups = new Map<string, string>()
  for (const group of served) {
    const spec = group.replace(/\.k8s\.io$/, ".platform")
    if (spec !== group && specGroups.has(spec) && !servedSet.has(spec)) groups.set(spec, group)
  }
  if (groups.size === 0) return specNames
  const back = new Map([...groups].map(([spec, target]) => [target, spec]))
  const toTarget = new Map(upstreamNamespaces)
  const fromTarget = new Map(upstreamNamespaces.map(([spec, upstream]) => [upstream, spec]))
  const renameApiVersion = (table: ReadonlyMap<string, string>) => (apiVersion: string) => {
    const slash = apiVersion.lastIndexOf("/")
    const renamed = slash > 0 ? table.get(apiVersion.slice(0, slash)) : undefined
    return renamed === undefined ? apiVersion : `${renamed}${apiVersion.slice(slash)}`
  }
  const resources = new Map<ResourceType, ResourceType>()
  return {
    translates: true,
    resource: (r) => {
      const group = platformSuffix.test(r.group) ? groups.get(r.group) : undefined
      if (group === undefined) return r
      let renamed = resources.get(r)
      if (!renamed) resources.set(r, (renamed = { ...r, group, apiVersion: `${group}/${r.version}` }))
      return renamed
    },
    namespaceToTarget: (ns) => toTarget.get(ns) ?? ns,
    namespaceFromTarget: (ns) => fromTarget.get(ns) ?? ns,
    apiVersionToTarget: renameApiVersion(groups),
    apiVersionFromTarget: renameApiVersion(back)
  }
}

/** The group names of an `APIGroupList` document (`/apis`). */
export const groupNamesOf = (apis: unknown): ReadonlyArray<string> =>
  isRecord(apis) && Array.isArray(apis.groups) ? apis.groups.flatMap((g) => (isRecord(g) && typeof g.name === "string" ? [g.name] : [])) : []

const renamed = (obj: unknown, apiVersion: (v: string) => string, namespace: (ns: string) => string): unknown => {
  if (!isRecord(obj)) return obj
  const out: Record<string, unknown> = { ...extendable, ...obj }
  if (typeof obj.apiVersion === "string") out.apiVersion = apiVersion(obj.apiVersion)
  const meta = obj.metadata
  if (isRecord(meta) && typeof meta.namespace === "string") out.metadata = { ...extendable, ...meta, namespace: namespace(meta.namespace) }
  if (Array.isArray(obj.items)) out.items = obj.items.map((item) => renamed(item, apiVersion, namespace))
  return out
}

/** A request body (object) in the target's names. */
export const bodyToTarget = (names: ApiNames, body: unknown): unknown =>
  names.translates && typeof body === "object" && !(body instanceof Uint8Array) ? renamed(body, names.apiVersionToTarget, names.namespaceToTarget) : body

/** An answer (object, list or Status) in the spec's names. */
export const answerFromTarget = <T>(names: ApiNames, answer: T): T =>
  names.translates ? (renamed(answer, names.apiVersionFromTarget, names.namespaceFromTarget) as T) : answer

export const eventFromTarget = (names: ApiNames, event: WatchEvent): WatchEvent =>
  names.translates ? { type: event.type, object: answerFromTarget(names, event.object) as KObject } : event
