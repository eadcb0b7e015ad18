/**
 * The `pods/log` subresource: a simulated container log. clustersim runs no containers, so a container's log is its
 * lifecycle as the pod's status records it — scheduled, image pulled, created, started, ready, stopped — one line
 * each, stamped with the status's own times (docs/stock-clients.md "Pod logs"). The checks and texts are upstream's:
 * `validateContainer` (`pkg/registry/core/pod/strategy.go`), `ValidatePodLogOptions`, and the kubelet's
 * `validateContainerLogStatus` (`pkg/kubelet/kubelet_pods.go`), whose errors the API server relays as 400
 * (`GenericHttpResponseChecker`). Pure.
 */
import { Either } from "effect"
import { errorBody, forbidden as forbiddenField, invalid as invalidField, type FieldError } from "../../src/api/FieldError.js"
import { goQuote } from "../../src/api/go/Quote.js"
import { isRecord, type KObject } from "../../src/api/Object.js"
import * as Status from "../../src/api/Status.js"
import { ApiError } from "../../src/api/Status.js"

export interface PodLogOptions {
  readonly container: string | undefined
  readonly follow: boolean
  readonly previous: boolean
  readonly timestamps: boolean
  readonly sinceSeconds: number | undefined
  readonly sinceTime: string | undefined
  readonly tailLines: number | undefined
  readonly limitBytes: number | undefined
}

export interface LogLine {
  readonly at: number
  readonly text: string
}

const truthy = (v: string | null) => v !== null && v !== "" && v !== "0" && v.toLowerCase() !== "false"

/**
 * The query as upstream's parameter codec reads `PodLogOptions`, then `ValidatePodLogOptions` (422 `PodLogOptions
 * "<pod>" is invalid: …`). An integer that does not parse is the codec's 400.
 */
export const podLogOptions = (name: string, query: URLSearchParams): Either.Either<PodLogOptions, ApiError> => {
  const ints: Record<string, number | undefined> = {}
  for (const key of ["sinceSeconds", "tailLines", "limitBytes"]) {
    const v = query.get(key)
    if (v === null || v === "") continue
    if (!/^[+-]?\d+$/.test(v)) return Either.left(Status.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`))
    ints[key] = Number(v)
  }
  const opts: PodLogOptions = {
    container: query.get("container") || undefined,
    follow: truthy(query.get("follow")),
    previous: truthy(query.get("previous")),
    timestamps: truthy(query.get("timestamps")),
    sinceSeconds: ints.sinceSeconds,
    sinceTime: query.get("sinceTime") || undefined,
    tailLines: ints.tailLines,
    limitBytes: ints.limitBytes
  }
  const errors: FieldError[] = []
  if (opts.tailLines !== undefined && opts.tailLines < 0) errors.push(invalidField("tailLines", opts.tailLines, "must be greater than or equal to 0"))
  if (opts.limitBytes !== undefined && opts.limitBytes < 1) errors.push(invalidField("limitBytes", opts.limitBytes, "must be greater than 0"))
  if (opts.sinceSeconds !== undefined && opts.sinceTime !== undefined) errors.push(forbiddenField("", "at most one of `sinceTime` or `sinceSeconds` may be specified"))
  if (opts.sinceSeconds !== undefined && opts.sinceSeconds < 1) errors.push(invalidField("sinceSeconds", opts.sinceSeconds, "must be greater than 0"))
  if (errors.length > 0) return Either.left(invalidOptions(name, errors))
  return Either.right(opts)
}

/**
 * 422 for the options. The sinceTime/sinceSeconds error is upstream's `field.Forbidden(field.NewPath(""), …)`,
 * which Go's `field.Error.Error()` prints with its empty path: `: Forbidden: at most one …`.
 */
const invalidOptions = (name: string, errors: ReadonlyArray<FieldError>): ApiError => {
  const base = Status.invalid("PodLogOptions", name, errors, { kind: "PodLogOptions", group: "" })
  const texts = [...new Set(errors.map((e) => `${e.field}: ${errorBody(e)}`))]
  const message = `PodLogOptions ${goQuote(name)} is invalid: ${texts.length === 1 ? texts[0]! : `[${texts.join(", ")}]`}`
  return new ApiError({ status: { ...base.status, message } }, true)
}

const records = (v: unknown): ReadonlyArray<Record<string, unknown>> => (Array.isArray(v) ? v.filter(isRecord) : [])
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined)

/** `validateContainer`: the container named, or the only one; init containers first in the list of choices. */
export const resolveContainer = (pod: KObject, container: string | undefined): Either.Either<string, ApiError> => {
  const spec = isRecord(pod.spec) ? pod.spec : {}
  const containers = records(spec.containers)
  const all = [...records(spec.initContainers), ...containers, ...records(spec.ephemeralContainers)].map((c) => String(c.name ?? ""))
  const name = pod.metadata.name
  if (container === undefined) {
    if (containers.length === 1) return Either.right(String(containers[0]!.name ?? ""))
    if (containers.length === 0) return Either.left(Status.badRequest(`a container name must be specified for pod ${name}`))
    return Either.left(Status.badRequest(`a container name must be specified for pod ${name}, choose one of: [${all.join(" ")}]`))
  }
  if (!all.includes(container)) return Either.left(Status.badRequest(`container ${container} is not valid for pod ${name}`))
  return Either.right(container)
}

/** The pod's node, or undefined: upstream's `LogLocation` then streams nothing (200, empty). */
export const nodeOf = (pod: KObject): string | undefined => {
  const node = isRecord(pod.spec) ? str(pod.spec.nodeName) : undefined
  return node === "" ? undefined : node
}

const statusOf = (pod: KObject, container: string): Record<string, unknown> | undefined => {
  const status = isRecord(pod.status) ? pod.status : {}
  for (const list of [status.containerStatuses, status.initContainerStatuses, status.ephemeralContainerStatuses])
    for (const s of records(list)) if (s.name === container) return s
  return undefined
}

/** The kubelet's `validateContainerLogStatus`: whether the container has a log to read, else its 400 text. */
export const checkLogStatus = (pod: KObject, container: string, previous: boolean): Either.Either<void, ApiError> => {
  const podName = pod.metadata.name ?? ""
  const fail = (text: string) => Either.left(Status.badRequest(text))
  const cStatus = statusOf(pod, container)
  const q = (s: string) => JSON.stringify(s)
  if (cStatus === undefined) return fail(`container ${q(container)} in pod ${q(podName)} is not available`)
  const state = isRecord(cStatus.state) ? cStatus.state : {}
  const last = isRecord(cStatus.lastState) ? cStatus.lastState : {}
  const lastTerminated = isRecord(last.terminated) ? last.terminated : undefined
  const terminated = isRecord(state.terminated) ? state.terminated : undefined
  const waiting = isRecord(state.waiting) ? state.waiting : undefined
  if (previous) {
    if (lastTerminated === undefined || !str(lastTerminated.containerID)) return fail(`previous terminated container ${q(container)} in pod ${q(podName)} not found`)
    return Either.right(undefined)
  }
  if (isRecord(state.running)) return Either.right(undefined)
  if (terminated !== undefined) {
    if (str(terminated.containerID) || (lastTerminated !== undefined && str(lastTerminated.containerID))) return Either.right(undefined)
    return fail(`container ${q(container)} in pod ${q(podName)} is terminated`)
  }
  if (lastTerminated !== undefined) {
    if (!str(lastTerminated.containerID)) return fail(`container ${q(container)} in pod ${q(podName)} is terminated`)
    return Either.right(undefined)
  }
  if (waiting !== undefined) {
    const reason = str(waiting.reason) ?? ""
    if (reason === "ErrImagePull") return fail(`container ${q(container)} in pod ${q(podName)} is waiting to start: image can't be pulled`)
    if (reason === "ImagePullBackOff") return fail(`container ${q(container)} in pod ${q(podName)} is waiting to start: trying and failing to pull image`)
    return fail(`container ${q(container)} in pod ${q(podName)} is waiting to start: ${reason}`)
  }
  return fail(`container ${q(container)} in pod ${q(podName)} is waiting to start - no logs yet`)
}

const timeOf = (v: unknown): number | undefined => {
  const t = typeof v === "string" ? Date.parse(v) : NaN
  return Number.isNaN(t) ? undefined : t
}

const conditionTime = (pod: KObject, type: string): number | undefined => {
  const status = isRecord(pod.status) ? pod.status : {}
  const c = records(status.conditions).find((x) => x.type === type && x.status === "True")
  return c ? timeOf(c.lastTransitionTime) : undefined
}

/**
 * The simulated log of a container: its lifecycle as the pod's status shows it so far. Lines only ever get added
 * as the status moves on, so a follower sends the lines past those it sent.
 */
export const logLines = (pod: KObject, container: string, previous: boolean): ReadonlyArray<LogLine> => {
  const cStatus = statusOf(pod, container) ?? {}
  const spec = isRecord(pod.spec) ? pod.spec : {}
  // the image as the pod names it, as the kubelet's Pulling/Pulled events do (the status has the runtime's normalised form)
  const image = str([...records(spec.initContainers), ...records(spec.containers)].find((c) => c.name === container)?.image) ?? str(cStatus.image) ?? ""
  const lines: LogLine[] = []
  const add = (at: number | undefined, text: string) => {
    if (at !== undefined) lines.push({ at, text })
  }
  const lastState = isRecord(cStatus.lastState) ? cStatus.lastState : {}
  const state = isRecord(cStatus.state) ? cStatus.state : {}
  // The previous instance's log: from its start to its end.
  const run = previous ? (isRecord(lastState.terminated) ? lastState.terminated : {}) : undefined
  const startedAt = run ? timeOf(run.startedAt) : timeOf(isRecord(state.running) ? state.running.startedAt : isRecord(state.terminated) ? state.terminated.startedAt : undefined)
  if (!previous) {
    const scheduled = conditionTime(pod, "PodScheduled")
    add(scheduled, `Successfully assigned ${pod.metadata.namespace ?? ""}/${pod.metadata.name} to ${nodeOf(pod) ?? ""}`)
    add(scheduled, `Pulling image ${JSON.stringify(image)}`)
  }
  add(startedAt, `Successfully pulled image ${JSON.stringify(image)}`)
  add(startedAt, `Created container ${container}`)
  add(startedAt, `Started container ${container}`)
  if (!previous && cStatus.ready === true) add(Math.max(conditionTime(pod, "Ready") ?? startedAt ?? 0, startedAt ?? 0), `Container ${container} is ready`)
  const ended = run ?? (isRecord(state.terminated) ? state.terminated : undefined)
  if (ended) add(timeOf(ended.finishedAt), `Stopped container ${container} (exit code ${String(ended.exitCode ?? 0)}${str(ended.reason) ? `, ${str(ended.reason)}` : ""})`)
  return lines
}

/** Whether a follow ends: the container has stopped (the kubelet's follow ends with the container's log). */
export const containerStopped = (pod: KObject, container: string): boolean => {
  const state = statusOf(pod, container)?.state
  return isRecord(state) && isRecord(state.terminated)
}

/** `2006-01-02T15:04:05.000000000Z07:00`, the kubelet's timestamp prefix (`RFC3339NanoFixed`). */
export const fixedNanoTime = (at: number): string => new Date(at).toISOString().replace(/\.(\d{3})Z$/, ".$1000000Z")

export const formatLine = (line: LogLine, timestamps: boolean): string => `${timestamps ? `${fixedNanoTime(line.at)} ` : ""}${line.text}\n`

/** sinceSeconds / sinceTime, then tailLines: what a request's first answer holds. */
export const selectLines = (lines: ReadonlyArray<LogLine>, opts: PodLogOptions, now: number): ReadonlyArray<LogLine> => {
  const since = opts.sinceSeconds !== undefined ? now - opts.sinceSeconds * 1000 : opts.sinceTime !== undefined ? timeOf(opts.sinceTime) : undefined
  const recent = since === undefined ? lines : lines.filter((l) => l.at >= since)
  return opts.tailLines === undefined ? recent : recent.slice(Math.max(0, recent.length - opts.tailLines))
}
