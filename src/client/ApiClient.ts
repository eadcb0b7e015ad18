/**
 * The client every part of clustersim talks to an API server through: the tag of its contract
 * (`ApiClientService.ts`), and `layerHttp`, which speaks the wire protocol with undici to any server URL — the
 * simulated one or a real one. The other implementation, direct calls into a simulated server of the same process,
 * lives with that server (`simulator/apiserver/InProcessClient.ts`); both pass one contract suite (`test/contract`).
 */
import { Context, Effect, Layer } from "effect"
import type { ClientError } from "./TransportError.js"
import type { ApiClientService } from "./ApiClientService.js"
import type { HttpClientOptions } from "./HttpClientOptions.js"
import { makeHttpClient } from "./HttpTransport.js"

export type { ApiClientService, DirectMeasure, Measured } from "./ApiClientService.js"

export class ApiClient extends Context.Tag("clustersim/ApiClient")<ApiClient, ApiClientService>() {
  /** The wire protocol over undici, for any server URL. */
  static readonly layerHttp = (options: HttpClientOptions): Layer.Layer<ApiClient> =>
    Layer.scoped(ApiClient, makeHttpClient(options))
}

/**
 * `client` with every request but watches passed through `around` (to count or observe them), and watches as `watch`
 * says (as they are by default). Optional fast paths (`at`, `measure`, …) are left out, so every request is seen.
 */
export const aroundRequests = (
  client: ApiClientService,
  around: <A>(request: Effect.Effect<A, ClientError>) => Effect.Effect<A, ClientError>,
  watch: ApiClientService["watch"] = client.watch
): ApiClientService => ({
  get: (...a) => around(client.get(...a)),
  list: (...a) => around(client.list(...a)),
  create: (...a) => around(client.create(...a)),
  update: (...a) => around(client.update(...a)),
  patch: (...a) => around(client.patch(...a)),
  delete: (...a) => around(client.delete(...a)),
  deleteCollection: (...a) => around(client.deleteCollection(...a)),
  watch
})
