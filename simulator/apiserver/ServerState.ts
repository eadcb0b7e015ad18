/**
 * What every verb of the API server reads and writes: the store, the watch fan-out, the seeded random source
 * and the configuration, with the key lookups they share. Created once per server; the verbs (`Read`, `Watch`,
 * `Write`, `Delete`) are mechanisms over it.
 */
import { defaultFeatureGates, type FeatureGates } from "../../src/api/FeatureGates.js"
import { PCGRandom } from "effect/Utils"
import type { KObject } from "../../src/api/Object.js"
import { initialNamespaces, Namespaces, type ResourceType } from "../../src/api/Resources.js"
import * as Status from "../../src/api/Status.js"
import type { ApiError } from "../../src/api/Status.js"
import { defaultAuthentication, type AuthenticationConfig } from "./auth/Authenticator.js"
import type { AuthorizationMode } from "./auth/Authorizer.js"
import type { EntryNote } from "./EntryNote.js"
import { objectKey, Store, type Change, type Entry } from "./Store.js"
import { rfc3339, uuidV4 } from "./SystemMeta.js"
import { WatchHub } from "./WatchHub.js"
import { ServiceAddresses } from "./ServiceAddresses.js"

export interface ApiServerConfig {
  readonly seed: number
  /** How long change history is kept (continue tokens and watch starts older than this get 410). */
  readonly historyWindowMs: number
  /** How long a read waits for a resource version newer than the server's before 504. */
  readonly tooLargeWaitMs: number
  /** Events buffered per watcher before a slow watcher is closed. */
  readonly watchBufferSize: number
  /** Bookmark period per watcher (with allowWatchBookmarks). */
  readonly bookmarkIntervalMs: number
  /** Default watch timeout is minRequestTimeout × (1 + rand[0,1)). */
  readonly minRequestTimeoutMs: number
  /** Who requests come from (docs/auth.md): anonymous on, no static tokens by default. */
  readonly authentication: AuthenticationConfig
  /** `AlwaysAllow` (default) or `RBAC` (bootstrap roles created at start). */
  readonly authorizationMode: AuthorizationMode
  /** The gates the server consults (`--feature-gates`): WatchList. */
  readonly featureGates: FeatureGates
}

export const defaultConfig: ApiServerConfig = {
  seed: 1,
  historyWindowMs: 5 * 60_000,
  tooLargeWaitMs: 3_000,
  watchBufferSize: 1_000,
  bookmarkIntervalMs: 60_000,
  minRequestTimeoutMs: 1_800_000,
  authentication: defaultAuthentication,
  authorizationMode: "AlwaysAllow",
  featureGates: defaultFeatureGates
}

export class ServerState {
  readonly store = new Store()
  readonly hub = new WatchHub()
  /** The cluster IPs and node ports stored Services hold (indexed at the first Service write). */
  readonly serviceAddresses = new ServiceAddresses(this.store)
  /** The server's one seeded stream: uids, generated names, watch timeouts (in request order). */
  readonly random: () => number

  constructor(
    readonly config: ApiServerConfig,
    startTime: number
  ) {
    const rng = new PCGRandom(config.seed)
    this.random = () => rng.number()
    this.store.subscribe((change: Change) => this.hub.publish(change))
    for (const name of initialNamespaces) this.store.put(Namespaces, name, this.newNamespace(name, startTime), startTime)
  }

  private newNamespace(name: string, time: number): KObject {
    return {
      metadata: {
        name,
        uid: uuidV4(this.random),
        creationTimestamp: rfc3339(time),
        labels: { "platform.io/metadata.name": name }
      },
      spec: { finalizers: ["platform"] },
      status: { phase: "Active" }
    }
  }

  key(resource: ResourceType, namespace: string | undefined, name: string): string {
    return objectKey(resource.namespaced ? namespace : undefined, name)
  }

  /** The stored entry a request names (its key is the stored one: nothing to build or hash again). */
  find(resource: ResourceType, namespace: string | undefined, name: string): Entry | undefined {
    return this.store.lookup(resource, resource.namespaced ? namespace : undefined, name)
  }

  /** `find`, through the caller's note of the entry when it has one (`EntryNote.ts`). */
  findNoted(resource: ResourceType, namespace: string | undefined, name: string, note: EntryNote | undefined): Entry | undefined {
    const ns = resource.namespaced ? namespace : undefined
    return note === undefined ? this.store.lookup(resource, ns, name) : note.lookup(this.store, resource, ns, name)
  }

  /** 404 for a namespaced write into a namespace that does not exist. */
  requireNamespace(resource: ResourceType, namespace: string | undefined): ApiError | undefined {
    if (!resource.namespaced || !namespace) return undefined
    return this.store.get(Namespaces, namespace) ? undefined : Status.notFound(Namespaces, namespace)
  }
}
