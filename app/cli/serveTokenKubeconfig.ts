/**
 * `serve --tls --kubeconfig-auth token`: a kubeconfig whose user authenticates with service-account tokens instead
 * of the admin client certificate, for scenarios that expire tokens (`expire-tokens`, scenarios/expired-token.yaml)
 * — a certificate has no token to expire or fetch again (./preflight.ts refuses it). docs/auth.md.
 *
 * The service account `default/clustersim-loadgen` (bound to `cluster-admin`, so RBAC mode lets it run any
 * scenario) gets its tokens from TokenRequest. The kubeconfig's user is an exec credential plugin — a small Node
 * script beside the certificates that asks for a token with the admin certificate and prints an ExecCredential, as
 * `kubectl create token` wrapped in a plugin would — so a client fetches a new token on its first 401, as client-go's
 * exec authenticator does. The `token` file holds one such token for tools that take a bearer token
 * (`kubectl --token "$(cat token)"`, curl).
 */
import { Effect } from "effect"
import { writeFile } from "node:fs/promises"
import * as path from "node:path"
import { stringify } from "yaml"
import type { ApiServerImpl } from "../../simulator/apiserver/ApiServer.js"
import { apiserverCredentials } from "../../simulator/apiserver/auth/ComponentIdentities.js"
import type { GeneratedPki } from "../../simulator/apiserver/auth/Certificates.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { ClusterRoleBindings, Namespaces, ServiceAccounts } from "../../src/api/Resources.js"
import { ExecApiVersions } from "../../src/client/auth/ExecCredential.js"
import { type ClientError, hasStatusCode } from "../../src/client/TransportError.js"
import { GeneratorServiceAccount } from "./generatorCredentials.js"

/** `--kubeconfig-auth`: what the user of the kubeconfig `serve --tls` writes authenticates with. */
export const kubeconfigAuths = ["client-certificate", "token"] as const
export type KubeconfigAuth = (typeof kubeconfigAuths)[number]

/** An hour, TokenRequest's default. */
const expirationSeconds = 3600

export interface TokenKubeconfig {
  readonly kubeconfig: string
  readonly tokenFile: string
  readonly plugin: string
  readonly serviceAccount: string
}

/** The exec plugin: one TokenRequest with the admin certificate, answered as an ExecCredential on stdout. */
export const tokenPluginSource = (o: {
  readonly server: string
  readonly caFile: string
  readonly certFile: string
  readonly keyFile: string
  readonly namespace: string
  readonly name: string
}): string => `#!/usr/bin/env node
// Written by \`clustersim serve --tls --kubeconfig-auth token\`: an exec credential plugin that asks the server for a
// TokenRequest token of ${o.namespace}/${o.name} with the admin certificate and prints it as an ExecCredential.
import { readFileSync } from "node:fs"
import * as https from "node:https"

const body = JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: ${expirationSeconds} } })
const url = new URL(${JSON.stringify(`/api/v1/namespaces/${o.namespace}/serviceaccounts/${o.name}/token`)}, ${JSON.stringify(o.server)})
const req = https.request(
  url,
  {
    method: "POST",
    ca: readFileSync(${JSON.stringify(o.caFile)}),
    cert: readFileSync(${JSON.stringify(o.certFile)}),
    key: readFileSync(${JSON.stringify(o.keyFile)}),
    headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
  },
  (res) => {
    let text = ""
    res.on("data", (c) => (text += c))
    res.on("end", () => {
      if (res.statusCode !== 201 && res.statusCode !== 200) {
        process.stderr.write(\`TokenRequest: \${res.statusCode} \${text}\\n\`)
        process.exit(1)
      }
      const status = JSON.parse(text).status
      process.stdout.write(JSON.stringify({ kind: "ExecCredential", apiVersion: ${JSON.stringify(ExecApiVersions[0])}, status: { token: status.token, expirationTimestamp: status.expirationTimestamp } }))
    })
  }
)
req.on("error", (e) => {
  process.stderr.write(\`TokenRequest: \${e.message}\\n\`)
  process.exit(1)
})
req.end(body)
`

/** The kubeconfig: the server trusted by the CA, the user an exec plugin run with this Node. */
export const tokenKubeconfigText = (server: string, caFile: string, plugin: string, user: string): string =>
  stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "clustersim", cluster: { server, "certificate-authority": caFile } }],
    users: [{ name: user, user: { exec: { apiVersion: ExecApiVersions[0], command: process.execPath, args: [plugin], interactiveMode: "Never" } } }],
    contexts: [{ name: "clustersim", context: { cluster: "clustersim", user } }],
    "current-context": "clustersim"
  })

const ignoreExists = <A>(e: Effect.Effect<A, ClientError>) => Effect.asVoid(Effect.catchIf(e, (x) => hasStatusCode(x, 409), () => Effect.void))

/** Makes the service account and its binding, writes the plugin, a token and the kubeconfig next to the certificates. */
export const writeTokenKubeconfig = (server: ApiServerImpl, url: string, pki: GeneratedPki): Effect.Effect<TokenKubeconfig, ClientError | Error> =>
  Effect.gen(function* () {
    // the server's own loopback identity (system:masters), as upstream's post-start hooks write bootstrap objects
    const api = inProcessClient(server, apiserverCredentials)
    const { namespace, name } = GeneratorServiceAccount
    yield* ignoreExists(api.create(Namespaces, { metadata: { name: namespace } }))
    yield* ignoreExists(api.create(ServiceAccounts, { metadata: { name } }, { namespace }))
    yield* ignoreExists(
      api.create(ClusterRoleBindings, {
        metadata: { name },
        roleRef: { apiGroup: "rbac.authorization.platform", kind: "ClusterRole", name: "cluster-admin" },
        subjects: [{ kind: "ServiceAccount", name, namespace }]
      })
    )
    const issued = yield* api.create(
      ServiceAccounts,
      { apiVersion: "authentication.platform/v1", kind: "TokenRequest", metadata: { name }, spec: { expirationSeconds } },
      { namespace, subresource: "token" }
    )
    const token = (issued.object as { status?: { token?: string } }).status?.token ?? ""
    const plugin = path.join(pki.dir, "token-plugin.mjs")
    const tokenFile = path.join(pki.dir, "token")
    const kubeconfig = path.join(pki.dir, "kubeconfig")
    const write = (file: string, text: string) => Effect.tryPromise({ try: () => writeFile(file, text, { mode: 0o600 }), catch: (e) => new Error(`${file}: ${String(e)}`) })
    yield* write(plugin, tokenPluginSource({ server: url, caFile: pki.caFile, certFile: pki.adminCertFile, keyFile: pki.adminKeyFile, namespace, name }))
    yield* write(tokenFile, token + "\n")
    yield* write(kubeconfig, tokenKubeconfigText(url, pki.caFile, plugin, `system:serviceaccount:${namespace}:${name}`))
    return { kubeconfig, tokenFile, plugin, serviceAccount: `${namespace}/${name}` }
  })
