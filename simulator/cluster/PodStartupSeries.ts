/**
 * A cluster result's pod start-up latency as `pod_startup` series, so a scenario's thresholds, the `slo` preset and
 * the report judge it like the load's (`latency{metric:pod_startup,name:without-image-pulls}: p(99) <= 5s`): in
 * virtual time the image pulls' two series (with `cluster.images`, docs/cluster.md "Image pulls"), on the real clock
 * the SLI's, creation → observed Running (`PodStartupSli.ts`).
 */
import { decodeHistogram, makeHistogram, type SeriesSnapshot } from "../../src/loadgen/LatencyRecorder.js"
import { withoutPullsSeries, withPullsSeries } from "../nodeagent/images/ImagePulls.js"
import type { ClusterResult } from "./ClusterResult.js"
import type { PodStartupResult } from "./PodStartupSli.js"

/** The series name of the SLI (creation → observed Running) of a run on the real clock. */
export const createToObservedSeries = "create-to-observed"

/** A `pod_startup` series named `name` from an encoded start-up histogram. */
export const podStartupSeriesOf = (name: string, encoded: string): SeriesSnapshot => {
  const latency = decodeHistogram(encoded)
  return {
    key: { metric: "pod_startup", operation: "start", resource: "pods", scope: "namespace", name },
    models: [],
    latency,
    serviceTime: makeHistogram(),
    count: latency.totalCount,
    errors: 0,
    connectionErrors: 0,
    dropped: 0,
    outOfRange: 0
  }
}

export const podStartupSeries = (cluster: Pick<ClusterResult, "images"> & { readonly realTime?: { readonly podStartup?: PodStartupResult } }): ReadonlyArray<SeriesSnapshot> => [
  ...(cluster.images !== undefined
    ? [podStartupSeriesOf(withoutPullsSeries, cluster.images.podStartup.withoutPulls.hdr), podStartupSeriesOf(withPullsSeries, cluster.images.podStartup.withPulls.hdr)]
    : []),
  ...(cluster.realTime?.podStartup !== undefined ? [podStartupSeriesOf(createToObservedSeries, cluster.realTime.podStartup.createToObserved.hdr)] : [])
]
