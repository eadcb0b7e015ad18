/**
 * The client every part of clustersim talks to an API server through: the tag of its contract
 * (`ApiClientService.ts`), and `layerHttp`, which speaks the wire protocol with undici to any server URL — the
 * simulated one or a real one. The other implementation, direct calls into a simulated server of the same process,
 * lives with that server (`simulator/apiserver/InProcessClient.ts`); both, and its immediate view, pass one contract
 * suite (`test/contract`). What only one of them has is a capability (`Capabilities.ts`); wrappers are made with
 * `transform` (`Transform.ts`).
 */
import { Context, Effect, Layer } from "effect"
import type { ApiClientService } from "./ApiClientService.js"
import type { HttpClientOptions } from "./HttpClientOptions.js"

export type { ApiClientService } from "./ApiClientService.js"

export class ApiClient extends Context.Tag("clustersim/ApiClient")<ApiClient, ApiClientService>() {
  /**
   * The wire protocol over undici, for any server URL. The transport (undici, the wire codecs) is loaded when the
   * layer is built, not with this tag: a simulated cluster in one process speaks no HTTP, and loading undici was
   * ~8 % of its start (issue 39).
   */
  static readonly layerHttp = (options: HttpClientOptions): Layer.Layer<ApiClient> =>
    Layer.scoped(
      ApiClient,
      Effect.flatMap(
        Effect.promise(() => import("./HttpTransport.js")),
        ({ makeHttpClient }) => makeHttpClient(options)
      )
    )
}
