/**
 * kube-controller-manager's service accounts controller (upstream `pkg/controller/serviceaccount`,
 * `serviceaccounts_controller.go`): every active namespace has the ServiceAccount `default`, made when the namespace
 * appears and made again when someone deletes it. What needs it: `kubectl create token default`, pods that name
 * their service account, charts that bind roles to it. Runs on the context's `ApiClient` and `Clock` until interrupted.
 *
 * As upstream: a namespace's sync reads the informers' caches; a namespace that is not `Active` (terminating) is
 * left alone; `AlreadyExists` (another writer was first) and `Forbidden` (the namespace began terminating) end the
 * sync quietly. Upstream ensures a configurable list of accounts; kube-controller-manager's is just `default`.
 */
import { Effect, type Scope } from "effect"
import { Namespaces, ServiceAccounts } from "../../../src/api/Resources.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { type ClientError, hasStatusCode } from "../../../src/client/TransportError.js"
import { startInformer } from "../../../src/informer/Informer.js"
import * as WorkQueue from "../WorkQueue.js"

/** The accounts every namespace gets (kube-controller-manager's `ServiceAccounts` option). */
export const ensuredServiceAccounts: ReadonlyArray<string> = ["default"]

/** Starts the informers and the worker in the current scope; they stop with it. */
export const startServiceAccountsController: Effect.Effect<void, never, ApiClient | Scope.Scope> = Effect.gen(function* () {
  const client = yield* ApiClient
  const queue = yield* WorkQueue.make
  const queueNamespace = (name: string | undefined) => name !== undefined && queue.add(name)
  const namespaces = yield* startInformer(
    { resource: Namespaces },
    { onAdd: (ns) => queueNamespace(ns.metadata.name), onUpdate: (_old, ns) => queueNamespace(ns.metadata.name) }
  )
  const accounts = yield* startInformer({ resource: ServiceAccounts }, { onDelete: (sa) => queueNamespace(sa.metadata.namespace) })

  /** `syncNamespace`: creates each ensured account the namespace lacks. */
  const sync = (namespace: string): Effect.Effect<void, ClientError> =>
    Effect.gen(function* () {
      const ns = namespaces.cache.get(undefined, namespace)
      if (ns === undefined || (ns.status as { phase?: string } | undefined)?.phase !== "Active") return
      for (const name of ensuredServiceAccounts) {
        if (accounts.cache.get(namespace, name) !== undefined) continue
        const made = yield* Effect.either(client.create(ServiceAccounts, { metadata: { name, namespace } }, { namespace }))
        if (made._tag === "Left" && !hasStatusCode(made.left, 409) && !hasStatusCode(made.left, 403)) return yield* Effect.fail(made.left)
      }
    })

  yield* Effect.forkScoped(
    Effect.gen(function* () {
      yield* Effect.all([namespaces.synced, accounts.synced], { discard: true })
      yield* queue.run(sync)
    })
  )
})
