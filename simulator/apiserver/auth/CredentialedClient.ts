/**
 * The in-process client of whoever a credential source says the caller is now: each request goes as the identity
 * of the source's current credential (a bearer token; `IdentityClient.ts` authenticates it), and a 401 is told to
 * the source, as the HTTP transport does (`src/client/auth/Credential.ts`). So a token that expires in the
 * simulated server's time answers 401 in-process too, and the client recovers as its client-go counterpart would.
 */
import { Effect, Stream } from "effect"
import type { ApiClientService } from "../../../src/client/ApiClient.js"
import { credentialFailure, withCredential, type Credential, type CredentialSource } from "../../../src/client/auth/Credential.js"
import type { ApiServerImpl } from "../ApiServer.js"
import { inProcessClient } from "../InProcessClient.js"
import { type ClientError, hasStatusCode } from "../../../src/client/TransportError.js"

export const credentialedClient = (server: ApiServerImpl, source: CredentialSource): ApiClientService => {
  // one identity client per credential: a source hands out few (one per rotation)
  const clients = new Map<string, ApiClientService>()
  const clientOf = (c: Credential) => {
    const key = c.token ?? ""
    let client = clients.get(key)
    if (!client) clients.set(key, (client = inProcessClient(server, c.token ? { authorization: `Bearer ${c.token}` } : {})))
    return client
  }
  const via = <A>(call: (api: ApiClientService) => Effect.Effect<A, ClientError>) => withCredential(source, (c) => call(clientOf(c)))
  return {
    get: (...a) => via((api) => api.get(...a)),
    list: (...a) => via((api) => api.list(...a)),
    create: (...a) => via((api) => api.create(...a)),
    update: (...a) => via((api) => api.update(...a)),
    patch: (...a) => via((api) => api.patch(...a)),
    delete: (...a) => via((api) => api.delete(...a)),
    deleteCollection: (...a) => via((api) => api.deleteCollection(...a)),
    watch: (...a) =>
      Stream.unwrap(
        Effect.map(Effect.mapError(source.current, credentialFailure), (c) =>
          clientOf(c)
            .watch(...a)
            .pipe(Stream.tapError((e) => (hasStatusCode(e, 401) ? source.unauthorized(c) : Effect.void)))
        )
      )
  }
}
