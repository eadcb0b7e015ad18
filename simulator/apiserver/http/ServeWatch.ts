/** Serves one watch request: the API server's watch fed into a chunked HTTP stream until either side ends it. */
import { Deferred, Effect, Exit } from "effect"
import type { WatchEvent } from "../../../src/api/Object.js"
import type { WatchOptions } from "../../../src/api/Requests.js"
import type { ResourceType } from "../../../src/api/Resources.js"
import { eventToWire, type ResourceView } from "../../../src/api/ServedNames.js"
import type { ApiError } from "../../../src/api/Status.js"
import type { ApiServerImpl } from "../ApiServer.js"
import type { ServerLimits } from "./Limits.js"
import { tableWatchEvent } from "./Representation.js"
import type { Responder } from "./Responder.js"
import { watchStream } from "./WatchStream.js"

/** A watch over HTTP (./WatchStream.ts), bounded by `watchBufferSize` events and the byte limit. */
export const serveWatch = (
  api: ApiServerImpl,
  resource: ResourceType,
  name: string | undefined,
  opts: WatchOptions,
  out: Responder,
  limits: ServerLimits,
  onDefect: (defect: unknown) => void,
  view: ResourceView | undefined,
  onEventSent?: (bytes: number) => void
): Effect.Effect<void, ApiError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const done = yield* Deferred.make<void>()
      // A Table watch carries the column definitions on its first event only; a view renames every event.
      const table = out.table
      let first = true
      const transform = table
        ? (event: WatchEvent) => {
            const converted = tableWatchEvent(table, event, first)
            first = false
            return converted
          }
        : view
          ? (event: WatchEvent) => eventToWire(view, event)
          : undefined
      const sink = watchStream(out.req, out.res, {
        representation: out.representation,
        maxQueuedEvents: api.config.watchBufferSize,
        maxQueuedBytes: limits.watchBufferBytes,
        onEnd: () => Deferred.unsafeDone(done, Exit.void),
        onDefect,
        transform,
        onEventSent
      })
      yield* api.watchInto(resource, opts, name, sink)
      sink.start()
      yield* Deferred.await(done)
    })
  )
