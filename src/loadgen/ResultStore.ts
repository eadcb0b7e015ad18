/**
 * Segment artifacts kept in the target itself, where `clustersim collect` finds them (docs/distributed.md "On
 * Kubernetes"): a pod's files go with the pod, and the one place every segment of a Job can write and a user can read
 * is the API server. A `run.json` is gzipped and split into ConfigMaps under the 1 MiB object limit
 * (`clustersim-result-RUN-SEGMENT-PART`, `binaryData`), labelled with the run, the Job, the segment and the part
 * count, so a reader knows when it has all of them.
 */
import { Effect } from "effect"
import { gunzipSync, gzipSync } from "node:zlib"
import type { KObject } from "../api/Object.js"
import { ConfigMaps } from "../api/Resources.js"
import { ApiClient } from "../client/ApiClient.js"
import { type ClientError, hasStatusCode } from "../client/TransportError.js"
import { type ExecutionSegment, segmentText } from "./ExecutionSegment.js"
import { rendezvousName } from "./Rendezvous.js"

/** Raw bytes per ConfigMap: base64 makes them 4/3 as many, which stays under the API server's 1 MiB request limit. */
export const PartBytes = 700 * 1024

export const Labels = { run: "clustersim.io/run", job: "clustersim.io/job", segment: "clustersim.io/segment", parts: "clustersim.io/parts" } as const

/** A label value (≤ 63 characters of [a-z0-9.-_], starting and ending alphanumeric) made from an id. */
export const labelValue = (id: string): string => rendezvousName(id).slice("clustersim-rendezvous-".length).slice(0, 63).replace(/[-.]+$/, "")

const partName = (run: string, index: number, part: number) => `clustersim-result-${labelValue(run)}`.slice(0, 200) + `-${index + 1}-${part}`

/** Splits a gzipped `run.json` into parts (pure). */
export const splitArtifact = (runJson: string, size = PartBytes): ReadonlyArray<Buffer> => {
  const gz = gzipSync(Buffer.from(runJson, "utf8"))
  return Array.from({ length: Math.max(1, Math.ceil(gz.length / size)) }, (_, k) => gz.subarray(k * size, (k + 1) * size))
}

/** Writes this segment's artifact (replacing a part written before: a retried pod). */
export const publishArtifact = (o: {
  readonly run: string
  readonly job?: string
  readonly namespace: string
  readonly segment: ExecutionSegment
  readonly runJson: string
}): Effect.Effect<number, ClientError, ApiClient> =>
  Effect.gen(function* () {
    const api = yield* ApiClient
    const parts = splitArtifact(o.runJson)
    yield* Effect.forEach(parts, (bytes, k) => {
      const object = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: partName(o.run, o.segment.index, k),
          namespace: o.namespace,
          labels: {
            [Labels.run]: labelValue(o.run),
            ...(o.job !== undefined ? { [Labels.job]: labelValue(o.job) } : {}),
            [Labels.segment]: String(o.segment.index + 1),
            [Labels.parts]: String(parts.length),
            "app.kubernetes.io/managed-by": "clustersim"
          },
          annotations: { "clustersim.io/segment-of": segmentText(o.segment) }
        },
        binaryData: { [`run.json.gz.${k}`]: bytes.toString("base64") }
      }
      return Effect.catchIf(
        Effect.asVoid(api.create(ConfigMaps, object, { namespace: o.namespace })),
        (e) => hasStatusCode(e, 409),
        () => Effect.asVoid(Effect.flatMap(api.get(ConfigMaps, object.metadata.name, { namespace: o.namespace }), (old) => api.update(ConfigMaps, { ...object, metadata: { ...object.metadata, resourceVersion: old.metadata.resourceVersion } } as unknown as KObject, { namespace: o.namespace })))
      )
    })
    return parts.length
  })

/** One segment as collected: its `run.json`, or why it cannot be had. */
export type Collected = { readonly segment: number; readonly runJson: string } | { readonly segment: number; readonly problem: string }

/** Reassembles every segment of a run (or of a Job's latest run) from its ConfigMaps (pure over the list). */
export const assembleArtifacts = (items: ReadonlyArray<KObject>): ReadonlyArray<Collected> => {
  const bySegment = new Map<number, Array<KObject>>()
  for (const item of items) {
    const segment = Number(item.metadata.labels?.[Labels.segment])
    if (!Number.isInteger(segment)) continue
    bySegment.set(segment, [...(bySegment.get(segment) ?? []), item])
  }
  return [...bySegment.entries()]
    .sort(([a], [b]) => a - b)
    .map(([segment, parts]): Collected => {
      const expected = Number(parts[0]!.metadata.labels?.[Labels.parts])
      const chunks = new Map<number, Buffer>()
      for (const p of parts) {
        for (const [key, value] of Object.entries((p as { binaryData?: Record<string, string> }).binaryData ?? {})) {
          const k = /^run\.json\.gz\.(\d+)$/.exec(key)
          if (k) chunks.set(Number(k[1]), Buffer.from(value, "base64"))
        }
      }
      const missing = Array.from({ length: expected }, (_, k) => k).filter((k) => !chunks.has(k))
      if (!Number.isInteger(expected) || missing.length > 0) return { segment, problem: `segment ${segment}: part${missing.length > 1 ? "s" : ""} ${missing.join(", ")} of ${expected} missing` }
      try {
        return { segment, runJson: gunzipSync(Buffer.concat(Array.from({ length: expected }, (_, k) => chunks.get(k)!))).toString("utf8") }
      } catch (e) {
        return { segment, problem: `segment ${segment}: its artifact does not decompress: ${(e as Error).message}` }
      }
    })
}

/** The ConfigMaps of a run (`run`) or of a Job (`job`) in a namespace. */
export const listResults = (o: { readonly namespace: string; readonly run?: string; readonly job?: string }): Effect.Effect<ReadonlyArray<KObject>, ClientError, ApiClient> =>
  Effect.gen(function* () {
    const api = yield* ApiClient
    const selector = o.run !== undefined ? `${Labels.run}=${labelValue(o.run)}` : `${Labels.job}=${labelValue(o.job ?? "")}`
    const list = yield* api.list(ConfigMaps, { namespace: o.namespace, labelSelector: selector })
    if (o.run !== undefined || list.items.length === 0) return list.items
    // a Job run more than once (deleted and applied again) left several runs: the latest one
    const latest = [...list.items].sort((a, b) => String(b.metadata.creationTimestamp ?? "").localeCompare(String(a.metadata.creationTimestamp ?? "")))[0]!
    const run = latest.metadata.labels?.[Labels.run]
    return list.items.filter((i) => i.metadata.labels?.[Labels.run] === run)
  })
