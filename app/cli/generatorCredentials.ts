/**
 * When a scenario expires tokens (`expire-tokens`), a simulated target (embedded, in-process) gives the load
 * generator a service account and an exec plugin that asks the server for its tokens — TokenRequest, as
 * `kubectl create token` would — so both sides of the step have a token to expire, and the client recovers as
 * client-go does: the first 401 runs the plugin again (docs/scenarios.md "Expired tokens").
 */
import { Effect } from "effect"
import type { ApiServerImpl } from "../../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { Namespaces, ServiceAccounts } from "../../src/api/Resources.js"
import type { CredentialSource } from "../../src/client/auth/Credential.js"
import { execCredentialSource } from "../../src/client/auth/ExecAuthenticator.js"
import { tokenRequestRunner } from "../../src/client/auth/TokenRequestPlugin.js"
import { type ClientError, hasStatusCode } from "../../src/client/TransportError.js"

export const GeneratorServiceAccount = { namespace: "default", name: "clustersim-loadgen" } as const
/** An hour, TokenRequest's default. */
const expirationSeconds = 3600

export const generatorCredentials = (server: ApiServerImpl): Effect.Effect<CredentialSource> =>
  Effect.gen(function* () {
    // the server's own client: the default server lets anyone in (anonymous, AlwaysAllow)
    const api = inProcessClient(server)
    const { namespace, name } = GeneratorServiceAccount
    const exists = (e: ClientError) => hasStatusCode(e, 409)
    yield* Effect.catchIf(api.create(Namespaces, { metadata: { name: namespace } }), exists, () => Effect.void)
    yield* Effect.catchIf(api.create(ServiceAccounts, { metadata: { name } }, { namespace }), exists, () => Effect.void)
    return execCredentialSource({
      config: {
        command: "kubectl",
        args: ["create", "token", name, "--namespace", namespace, `--duration=${expirationSeconds}s`],
        env: [],
        apiVersion: "client.authentication.k8s.io/v1",
        interactiveMode: "Never",
        provideClusterInfo: false
      },
      run: tokenRequestRunner({ api, serviceAccounts: ServiceAccounts, namespace, serviceAccount: name, expirationSeconds }),
      isTerminal: () => false
    })
  }).pipe(Effect.orDie)
