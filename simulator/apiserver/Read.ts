/**
 * get and list: the resource-version plan of each read (`ResourceVersion.ts`) carried out over the store, with
 * waits for a newer revision, selectors, and paging with continue tokens (upstream "Resource versions" and
 * "Retrieving large results sets in chunks" in the API concepts). Every read comes in through `Admission`.
 */
import { Duration, Effect, Either, Schedule } from "effect"
import { decodeContinue, encodeContinue } from "../../src/api/ContinueToken.js"
import type { KList, KObject } from "../../src/api/Object.js"
import type { GetOptions, ListOptions } from "../../src/api/Requests.js"
import type { ResourceType } from "../../src/api/Resources.js"
import { matchesFields, parseFieldSelector } from "../../src/api/FieldSelector.js"
import { matchesLabels, parseLabelSelector } from "../../src/api/LabelSelector.js"
import * as Status from "../../src/api/Status.js"
import type { ApiError } from "../../src/api/Status.js"
import type { Admission } from "./Admission.js"
import { pinnedIndexValue } from "./FieldIndex.js"
import { planGet, planList, type ReadPlan } from "./ResourceVersion.js"
import type { ServerState } from "./ServerState.js"
import { everything, keyPrefix } from "./Store.js"
import { listOf, typedStored } from "./TypeMeta.js"

/** A read that must first wait for the server to reach `revision` (the watch cache's 3 s wait). */
export class WaitFor {
  constructor(readonly revision: number) {}
}

/** Label and field selectors of a request, parsed (400 with upstream messages) into one predicate. */
export const selectorsOf = (resource: ResourceType, opts: { labelSelector?: string | undefined; fieldSelector?: string | undefined }) =>
  Either.gen(function* () {
    const labels = opts.labelSelector ? yield* parseLabelSelector(opts.labelSelector) : undefined
    const fields = opts.fieldSelector ? yield* parseFieldSelector(opts.fieldSelector, resource) : undefined
    const matches =
      labels === undefined && fields === undefined
        ? everything
        : (obj: KObject): boolean => (labels === undefined || matchesLabels(labels, obj.metadata.labels)) && (fields === undefined || matchesFields(fields, obj))
    return { matches, filtered: labels !== undefined || fields !== undefined, fields }
  })

/** Polling period while waiting for a too-large resource version (virtual or real time). */
const revisionPollInterval = Duration.millis(100)

const expiredContinueMessage =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."

/**
 * Waits (up to tooLargeWaitMs on the Clock) for the store to reach `revision`; 504 with Retry-After otherwise.
 * The bound is a deadline, as upstream's `waitUntilFreshAndBlock`, not a count of polls: on a busy event loop
 * each poll wakes late, and thirty late polls once made a 3 s wait last over 10 s. Reads and streamed initial
 * watch states (./Watch.ts) wait alike.
 */
export const awaitRevision = (state: ServerState, revision: number): Effect.Effect<void, ApiError> => {
  const store = state.store
  if (revision <= store.revision) return Effect.void
  const poll = Effect.suspend(() => (store.revision >= revision ? Effect.void : Effect.fail(undefined)))
  return poll.pipe(
    Effect.retry(Schedule.spaced(revisionPollInterval).pipe(Schedule.upTo(Duration.millis(state.config.tooLargeWaitMs)))),
    Effect.catchAll(() => Effect.fail(Status.tooLargeResourceVersion(revision, store.revision, 1)))
  )
}

export class Read {
  constructor(
    private readonly state: ServerState,
    private readonly admission: Admission
  ) {}

  get(resource: ResourceType, name: string, opts: GetOptions = {}): Effect.Effect<KObject, ApiError> {
    return this.read(() => this.getNow(resource, name, opts))
  }

  /** `get` without waiting: the answer, or the revision it would have to wait for. */
  getNow(resource: ResourceType, name: string, opts: GetOptions = {}): Either.Either<KObject, ApiError> | WaitFor {
    const plan = planGet(opts.resourceVersion, resource.watchCached)
    if (Either.isLeft(plan)) return Either.left(plan.left)
    const pre = this.precondition(plan.right)
    if (pre instanceof WaitFor) return pre
    if (pre) return Either.left(pre)
    const obj = this.state.find(resource, opts.namespace, name)?.obj
    return obj ? Either.right(typedStored(obj, resource)) : Either.left(Status.notFound(resource, name))
  }

  /**
   * The latest stored object of a GET without a resourceVersion, as the store keeps it (no kind/apiVersion), or its
   * 404: what an informer cache holds, for in-process readers that read no type meta (`StoredRead.ts`).
   */
  storedNow(resource: ResourceType, namespace: string | undefined, name: string): Either.Either<KObject, ApiError> {
    const obj = this.state.find(resource, namespace, name)?.obj
    return obj ? Either.right(obj) : Either.left(Status.notFound(resource, name))
  }

  list(resource: ResourceType, opts: ListOptions = {}): Effect.Effect<KList, ApiError> {
    return this.read(() => this.listNow(resource, opts))
  }

  /** `list` without waiting: the answer, or the revision it would have to wait for. */
  listNow(resource: ResourceType, opts: ListOptions = {}): Either.Either<KList, ApiError> | WaitFor {
    const plan = planList(opts, resource.watchCached)
    if (Either.isLeft(plan)) return Either.left(plan.left)
    const pre = this.precondition(plan.right)
    if (pre instanceof WaitFor) return pre
    if (pre) return Either.left(pre)
    return this.listAt(resource, opts, plan.right)
  }

  /** Runs a read; one that must wait for a newer revision waits on the Clock, then reads again. */
  private read<A>(attempt: () => Either.Either<A, ApiError> | WaitFor): Effect.Effect<A, ApiError> {
    return Effect.flatMap(this.admission.admit, () => {
      const first = attempt()
      if (!(first instanceof WaitFor)) return first
      return Effect.flatMap(awaitRevision(this.state, first.revision), () => {
        const again = attempt()
        return again instanceof WaitFor ? Effect.fail(Status.tooLargeResourceVersion(again.revision, this.state.store.revision, 1)) : again
      })
    })
  }

  /** What a read plan needs before reading now: nothing, a failure, or a revision to wait for. */
  private precondition(plan: ReadPlan): ApiError | WaitFor | undefined {
    const current = this.state.store.revision
    switch (plan._tag) {
      case "NotOlderThanCached":
        return plan.revision > current ? new WaitFor(plan.revision) : undefined
      case "NotOlderThanStorage":
      case "Exact":
        return plan.revision > current ? Status.tooLargeResourceVersion(plan.revision, current, 0) : undefined
      default:
        return undefined
    }
  }

  private listAt(resource: ResourceType, opts: ListOptions, plan: ReadPlan): Either.Either<KList, ApiError> {
    return Either.gen(this, function* () {
      const { matches, filtered, fields } = yield* selectorsOf(resource, opts)
      const prefix = keyPrefix(resource.namespaced ? opts.namespace : undefined)
      const store = this.state.store
      let revision = store.revision
      let start = prefix
      let paged = opts.limit !== undefined && opts.limit > 0
      switch (plan._tag) {
        case "Any":
        case "NotOlderThanCached":
          paged = false
          break
        case "Exact":
          if (plan.revision < store.compactedRevision)
            return yield* Either.left(Status.expired("The resourceVersion for the provided list is too old."))
          revision = plan.revision
          break
        case "Continue": {
          const token = yield* decodeContinue(plan.token)
          if (token.rv !== -1 && token.rv < store.compactedRevision) {
            const fresh = encodeContinue({ rv: -1, start: token.start })
            return yield* Either.left(Status.expired(expiredContinueMessage, { continue: fresh }))
          }
          if (token.rv !== -1) revision = token.rv
          start = prefix + token.start
          paged = opts.limit !== undefined && opts.limit > 0
          break
        }
      }
      const page = store.page({
        resource,
        revision,
        prefix,
        start,
        limit: paged ? opts.limit : undefined,
        matches,
        countRemaining: !filtered,
        indexValue: pinnedIndexValue(resource, fields)
      })
      // the items as stored: without kind/apiVersion (`Write.ts` stores objects so), as list items are served
      const items = page.items
      const metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number } = { resourceVersion: String(revision) }
      if (page.lastKey !== undefined) {
        metadata.continue = encodeContinue({ rv: revision, start: page.lastKey.slice(prefix.length) + "\u0000" })
        if (!filtered) metadata.remainingItemCount = page.remaining
      }
      return listOf(resource, items, metadata)
    })
  }
}
