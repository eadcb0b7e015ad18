/**
 * Request options as the API takes them — query-parameter strings, validated by the server so that the
 * HTTP and in-process transports report the same errors.
 */
import type { KObject, KList, WatchEvent } from "./Object.js"
import type { Status } from "./Status.js"

export interface Scope {
  /** Namespace of a namespaced resource; absent for cluster-scoped types and all-namespace lists. */
  readonly namespace?: string | undefined
}

export interface GetOptions extends Scope {
  readonly resourceVersion?: string | undefined
}

export interface ListOptions extends Scope {
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
  readonly limit?: number | undefined
  readonly continue?: string | undefined
  readonly resourceVersion?: string | undefined
  readonly resourceVersionMatch?: string | undefined
  /** Only for watches: a list that names it is refused (422). */
  readonly sendInitialEvents?: boolean | undefined
}

export interface WatchOptions extends Scope {
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
  readonly resourceVersion?: string | undefined
  readonly resourceVersionMatch?: string | undefined
  readonly allowWatchBookmarks?: boolean | undefined
  readonly timeoutSeconds?: number | undefined
  /**
   * WatchList (KEP-3157, the `WatchList` gate): the current state as ADDED events, then a bookmark annotated
   * `k8s.io/initial-events-end`, then live events. Needs `resourceVersionMatch: NotOlderThan`.
   */
  readonly sendInitialEvents?: boolean | undefined
  /**
   * Only validated: with `resourceVersionMatch` it is upstream's 422 (`validateWatchOptions`); otherwise a watch
   * ignores it, as upstream's registry `Store.Watch` does (it reads no continue token).
   */
  readonly continue?: string | undefined
}

export interface WriteOptions extends Scope {
  /** `All`, or `""` for the bare parameter; anything else is a 422. */
  readonly dryRun?: ReadonlyArray<string> | undefined
  readonly fieldValidation?: string | undefined
  readonly fieldManager?: string | undefined
  readonly subresource?: string | undefined
  /** Apply only: take ownership of conflicting fields. */
  readonly force?: boolean | undefined
  /** The client's User-Agent, naming the field manager when `fieldManager` is not given (`prefixFromUserAgent`). */
  readonly userAgent?: string | undefined
}

export interface DeleteOptions extends Scope {
  readonly dryRun?: ReadonlyArray<string> | undefined
  readonly propagationPolicy?: string | undefined
  readonly orphanDependents?: boolean | undefined
  readonly gracePeriodSeconds?: number | undefined
  readonly preconditions?: { readonly uid?: string | undefined; readonly resourceVersion?: string | undefined } | undefined
}

/** `apply` is server-side apply (`application/apply-patch+yaml`). */
export type PatchType = "merge" | "json" | "strategic" | "apply"

export interface WriteResult {
  readonly code: number
  readonly object: KObject
  readonly warnings: ReadonlyArray<string>
}

/** A delete answers with the object (finalizers pending) or a Success Status (removed). */
export interface DeleteResult {
  readonly code: number
  readonly object?: KObject | undefined
  readonly status?: Status | undefined
}

export type { KList, WatchEvent }
