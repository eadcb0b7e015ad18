/**
 * The `pods/eviction` subresource (spec 000, API-initiated eviction; upstream `pkg/registry/core/pod/storage/
 * eviction.go`): a `policy/v1` Eviction body names the pod and may carry DeleteOptions; the pod is deleted as a
 * DELETE with those options would delete it, and the answer is a `Success` Status with 201. No
 * PodDisruptionBudget type is served, so no budget can refuse an eviction (docs/upstream-names.md).
 */
import { Either } from "effect"
import { isRecord, type KObject } from "../../src/api/Object.js"
import type { WriteOptions, WriteResult } from "../../src/api/Requests.js"
import { Pods } from "../../src/api/Resources.js"
import * as Status from "../../src/api/Status.js"
import type { ApiError } from "../../src/api/Status.js"
import type { Body } from "./Decode.js"
import type { Delete } from "./Delete.js"

const evictionKinds = new Set(["", "Eviction"])
const evictionVersions = new Set(["", "policy/v1", "policy/v1beta1"])

export const evictAt = (deletes: Delete, body: Body, opts: WriteOptions, now: number): Either.Either<WriteResult, ApiError> => {
  const eviction = body.value
  if (!isRecord(eviction) || !isRecord(eviction.metadata))
    return Either.left(Status.badRequest(`Eviction in version "v1" cannot be handled as a Eviction: invalid eviction`))
  const kind = typeof eviction.kind === "string" ? eviction.kind : ""
  const apiVersion = typeof eviction.apiVersion === "string" ? eviction.apiVersion : ""
  if (!evictionKinds.has(kind) || !evictionVersions.has(apiVersion))
    return Either.left(Status.badRequest(`the object provided is unrecognized (must be of type Eviction): ${apiVersion}, Kind=${kind}`))
  const name = typeof eviction.metadata.name === "string" ? eviction.metadata.name : ""
  const options = isRecord(eviction.deleteOptions) ? eviction.deleteOptions : {}
  const pre = isRecord(options.preconditions) ? options.preconditions : undefined
  const deleted = deletes.deleteAt(
    Pods,
    name,
    {
      namespace: opts.namespace,
      dryRun: Array.isArray(options.dryRun) ? (options.dryRun as string[]) : opts.dryRun,
      gracePeriodSeconds: typeof options.gracePeriodSeconds === "number" ? options.gracePeriodSeconds : undefined,
      preconditions: pre ? { uid: pre.uid as string | undefined, resourceVersion: pre.resourceVersion as string | undefined } : undefined
    },
    now
  )
  return Either.map(deleted, () => ({
    code: 201,
    object: Status.makeStatus({ status: "Success", code: 201 }) as unknown as KObject,
    warnings: []
  }))
}
