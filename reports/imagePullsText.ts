/**
 * A cluster run's image pulls in the summary and report (`cluster.images`, docs/cluster.md "Image pulls"): pods that
 * pulled, each registry's answers by outcome, the kubelet's pull events and the credential plugin's work.
 */
import type { ImagePullsResult } from "../simulator/nodeagent/images/ImagePulls.js"
import { clockText, plural } from "./format.js"

/** A registry's answers by outcome, in the words of the failure a node saw (simulator/nodeagent/images/Registry.ts). */
export const pullOutcomes: ReadonlyArray<readonly [keyof ImagePullsResult["registries"][string], string]> = [
  ["served", "served"],
  ["unauthorized", "unauthorized (401)"],
  ["throttled", "throttled (429)"],
  ["outage", "refused (registry down)"],
  ["failed", "failed (503)"]
]

/** The pull events in the order a pod meets them. */
const eventOrder = ["Pulling", "Pulled", "Failed", "BackOff"]

export const registryText = (counts: ImagePullsResult["registries"][string]): string => {
  const parts = pullOutcomes.filter(([k]) => (counts[k] ?? 0) > 0).map(([k, label]) => `${counts[k]} ${label}`)
  return parts.length === 0 ? "no pulls" : parts.join(", ")
}

/** The pull events' reasons in the order a pod meets them, then any other. */
export const pullEventReasons = (byReason: Readonly<Record<string, number>>): ReadonlyArray<string> => [
  ...eventOrder.filter((r) => byReason[r] !== undefined),
  ...Object.keys(byReason).filter((r) => !eventOrder.includes(r)).sort()
]

type ImagesView = Pick<ImagePullsResult, "podsStarted" | "podsWithPulls" | "events" | "lastFailureAt" | "registries" | "credentialPlugin">

/** `image pulls: …`, a line per registry, the events and the credential plugin (indented under the cluster line). */
export const renderImagePulls = (images: ImagesView): ReadonlyArray<string> => {
  const out: Array<string> = []
  const last = images.lastFailureAt === null || images.lastFailureAt === undefined ? "" : `; last pull failure at ${clockText(images.lastFailureAt)}`
  out.push(`  image pulls: ${plural(images.podsStarted, "pod")} started, ${images.podsWithPulls} of them after pulling${last}`)
  for (const [host, counts] of Object.entries(images.registries).sort(([a], [b]) => a.localeCompare(b))) out.push(`    ${host}: ${registryText(counts)}`)
  const byReason = images.events.byReason as Readonly<Record<string, number>>
  const reasons = pullEventReasons(byReason)
  if (reasons.length > 0) out.push(`    pull events: ${reasons.map((r) => `${r} ${byReason[r]}`).join(", ")}`)
  const plugin = images.credentialPlugin
  if (plugin.execs + plugin.failures + plugin.cacheHits > 0)
    out.push(`    credential plugin: ${plural(plugin.execs, "exec")}, ${plural(plugin.failures, "failure")}, ${plural(plugin.cacheHits, "cache hit")}`)
  return out
}
