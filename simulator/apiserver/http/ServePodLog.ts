/**
 * Serves `GET …/pods/<name>/log` as `text/plain` (upstream's `LogREST` with its `LocationStreamer`): the simulated
 * log of PodLog.ts, then with `follow` the lines the pod's status adds, from a watch of the pod, until the container
 * stops, the pod is deleted or the client goes away. `limitBytes` bounds everything sent, follow included.
 */
import type * as http from "node:http"
import { Clock, Effect, Stream } from "effect"
import type { KObject } from "../../../src/api/Object.js"
import { Pods } from "../../../src/api/Resources.js"
import type { ApiError } from "../../../src/api/Status.js"
import type { ApiServerImpl } from "../ApiServer.js"
import { checkLogStatus, containerStopped, formatLine, logLines, nodeOf, podLogOptions, resolveContainer, selectLines, type LogLine } from "../PodLog.js"

const lineKey = (l: LogLine) => `${l.at} ${l.text}`

export const servePodLog = (
  api: ApiServerImpl,
  name: string,
  namespace: string | undefined,
  query: URLSearchParams,
  res: http.ServerResponse
): Effect.Effect<void, ApiError> =>
  Effect.gen(function* () {
    const opts = yield* podLogOptions(name, query)
    const pod = yield* api.get(Pods, name, { namespace })
    const container = yield* resolveContainer(pod, opts.container)
    // `LogLocation` of an unscheduled pod: no location, an empty stream.
    if (nodeOf(pod) === undefined) {
      res.writeHead(200, { "Content-Type": "text/plain", "Content-Length": "0" })
      return res.end()
    }
    yield* checkLogStatus(pod, container, opts.previous)
    const now = yield* Clock.currentTimeMillis
    let budget = opts.limitBytes ?? Number.POSITIVE_INFINITY
    const sent = new Set<string>()
    const send = (lines: ReadonlyArray<LogLine>): boolean => {
      for (const line of lines) {
        if (budget <= 0) return false
        sent.add(lineKey(line))
        let bytes = Buffer.from(formatLine(line, opts.timestamps))
        if (bytes.length > budget) bytes = bytes.subarray(0, budget)
        budget -= bytes.length
        res.write(bytes)
      }
      return budget > 0
    }
    res.writeHead(200, { "Content-Type": "text/plain", "Transfer-Encoding": "chunked" })
    const all = logLines(pod, container, opts.previous)
    for (const l of all) sent.add(lineKey(l))
    const more = send(selectLines(all, opts, now))
    if (!opts.follow || opts.previous || !more || containerStopped(pod, container)) return res.end()
    // Follow: the pod's changes after the one read, one name's watch.
    const events = yield* api.watch(Pods, { namespace, fieldSelector: `metadata.name=${name}`, resourceVersion: pod.metadata.resourceVersion }, name)
    yield* events.pipe(
      Stream.takeWhile((event) => {
        if (event.type === "DELETED" || event.type === "ERROR") return false
        if (event.type !== "MODIFIED" && event.type !== "ADDED") return true
        const current = event.object as KObject
        const fresh = logLines(current, container, false).filter((l) => !sent.has(lineKey(l)))
        return send(fresh) && !containerStopped(current, container)
      }),
      Stream.runDrain
    )
    res.end()
  }).pipe(Effect.scoped)
