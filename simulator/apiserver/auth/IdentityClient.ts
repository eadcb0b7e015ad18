/**
 * An in-process client acting as one identity: every call is authenticated (a token is checked at the call's time,
 * so it expires in virtual time) and authorized as the same request over HTTP would be, and the access reviews
 * answer for that identity. A misconfigured role therefore shows up as 403s in a simulated run, as in a real
 * cluster. A client certificate is checked once: it cannot expire in the simulation.
 */
import { Clock, Effect, Either, Stream } from "effect"
import type { KObject } from "../../../src/api/Object.js"
import type { DeleteOptions, GetOptions, ListOptions, PatchType, WatchOptions, WriteOptions } from "../../../src/api/Requests.js"
import { rbacGroup } from "../../../src/api/kinds/Rbac.js"
import type { ResourceType } from "../../../src/api/Resources.js"
import type { ApiError } from "../../../src/api/Status.js"
import type { ApiClientService } from "../../../src/client/ApiClient.js"
import type { InProcessClientService, WatchPulls } from "../../../src/client/Capabilities.js"
import { openWatchPull } from "../../../src/client/WatchPull.js"
import type { AccessControl } from "./AccessControl.js"
import type { Permissions } from "./Authorizer.js"
import type { Credentials } from "./Authenticator.js"
import type { CallQuery, CallVerb } from "../RequestInfo.js"
import { callAttributes, type ResourceAttributes } from "./RequestAttributes.js"
import type { UserInfo } from "./UserInfo.js"
import type { ClientError } from "../../../src/client/TransportError.js"

const nameOf = (obj: unknown): string | undefined => (obj as { metadata?: { name?: string } } | undefined)?.metadata?.name

/** Reviews answered for a user (the server's `review`). */
export type Reviewer = (resource: Parameters<ApiClientService["create"]>[0], body: unknown, caller: UserInfo) => ReturnType<ApiClientService["create"]>

/**
 * The options of an RBAC object's write with the caller added, for RBAC's escalation check (RoleEscalation.ts); any
 * other write's as they are (the server's in-process client hands them on to the server unchanged).
 */
const withCaller = (resource: ResourceType, opts: WriteOptions | undefined, user: UserInfo): WriteOptions | undefined =>
  resource.group === rbacGroup ? ({ ...opts, caller: user } as WriteOptions & { readonly caller: UserInfo }) : opts

export const identityClient = (access: AccessControl, credentials: Credentials, client: InProcessClientService, reviewer: Reviewer): InProcessClientService => {
  // A verified certificate names the same user on every call.
  const fixed = credentials.authorization === undefined && credentials.clientCertificate !== undefined ? access.authenticate(credentials, 0) : undefined
  const userAt = (now: number): Either.Either<UserInfo, ApiError> => fixed ?? access.authenticate(credentials, now)
  const admitAt = (now: number, attrs: ResourceAttributes): Either.Either<UserInfo, ApiError> => {
    const user = userAt(now)
    if (Either.isLeft(user)) return user
    const denied = access.authorize(user.right, attrs)
    return denied ? Either.left(denied) : user
  }
  /** The effectful verbs: each call is checked at the Clock time when it runs. */
  const effectful = ((): ApiClientService & WatchPulls => {
    const checked = <A, R = never>(attrs: ResourceAttributes, run: (user: UserInfo) => Effect.Effect<A, ClientError, R>): Effect.Effect<A, ClientError, R> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => Either.match(admitAt(now, attrs), { onLeft: (e) => Effect.fail(e), onRight: run }))
    return {
      get: (resource, name, opts) => checked(callAttributes("get", resource, opts?.namespace, name), () => client.get(resource, name, opts)),
      list: (resource, opts) => checked(callAttributes("list", resource, opts?.namespace, undefined, undefined, opts), () => client.list(resource, opts)),
      create: (resource, obj, opts) =>
        checked(callAttributes("create", resource, opts?.namespace, opts?.subresource ? (nameOf(obj) ?? "") : undefined, opts?.subresource), (user) =>
          resource.virtual ? reviewer(resource, obj, user) : client.create(resource, obj, withCaller(resource, opts, user))
        ),
      update: (resource, obj, opts) =>
        checked(callAttributes("update", resource, opts?.namespace ?? obj.metadata.namespace, nameOf(obj), opts?.subresource), (user) =>
          client.update(resource, obj, withCaller(resource, opts, user))
        ),
      patch: (resource, name, patchType, patch, opts) =>
        checked(callAttributes("patch", resource, opts?.namespace, name, opts?.subresource), (user) =>
          client.patch(resource, name, patchType, patch, withCaller(resource, opts, user))
        ),
      delete: (resource, name, opts) => checked(callAttributes("delete", resource, opts?.namespace, name), () => client.delete(resource, name, opts)),
      deleteCollection: (resource, opts) => checked(callAttributes("deletecollection", resource, opts?.namespace, undefined), () => client.deleteCollection(resource, opts)),
      watch: (resource, opts) =>
        Stream.unwrap(checked(callAttributes("watch", resource, opts?.namespace, undefined, undefined, opts), () => Effect.succeed(client.watch(resource, opts)))),
      pullWatch: (resource, opts) =>
        checked(callAttributes("watch", resource, opts?.namespace, undefined, undefined, opts), () => openWatchPull(client, resource, opts))
    }
  })()
  const at = client.at
  const immediate = new ImmediateView(
    client,
    effectful,
    fixed !== undefined && Either.isRight(fixed) ? fixed.right : undefined,
    fixed !== undefined && Either.isRight(fixed) ? access.permissionsOf(fixed.right) : undefined,
    access,
    (now, attrs) => {
      const user = admitAt(now, attrs)
      return Either.isLeft(user) ? user.left : undefined
    }
  )
  // Built key by key: a spread copy would give each of thousands of identity clients a hidden class of its own, and
  // every agent's request site reading `at` would go megamorphic (docs/benchmarks.md "Authorization cost").
  return {
    get: effectful.get,
    list: effectful.list,
    create: effectful.create,
    update: effectful.update,
    patch: effectful.patch,
    delete: effectful.delete,
    deleteCollection: effectful.deleteCollection,
    watch: effectful.watch,
    pullWatch: effectful.pullWatch,
    at: (now: number) => {
      const base = at(now)
      if (base === undefined) return undefined
      immediate.now = now
      immediate.view = base
      return immediate
    }
  }
}

/**
 * An identity's immediate view (`at`): its verbs are methods, so thousands of node agents' views share their code
 * and each holds only a few fields — a request touches little memory of its own agent (docs/benchmarks.md
 * "Authorization cost"). A repeated request allocates nothing to be let through. Call its verbs on it, as methods.
 */
class ImmediateView implements ApiClientService, WatchPulls {
  now = 0
  view: ApiClientService & WatchPulls
  // The last call and its attributes: an agent repeats its calls (a lease renewal every 10 s), and a repeat
  // allocates nothing.
  private lastVerb: CallVerb | undefined = undefined
  private lastResource: ResourceType | undefined = undefined
  private lastNamespace: string | undefined = undefined
  private lastName: string | undefined = undefined
  private lastSubresource: string | undefined = undefined
  private lastAttributes: ResourceAttributes | undefined = undefined

  constructor(
    base: ApiClientService & WatchPulls,
    private readonly effectful: ApiClientService & WatchPulls,
    /** A certificate's user (it cannot expire), whose permissions are found once. */
    private readonly user: UserInfo | undefined,
    private readonly permissions: Permissions | undefined,
    private readonly access: AccessControl,
    /** Any other credential: authenticated and authorized at each call's time. */
    private readonly admit: (now: number, attrs: ResourceAttributes) => ApiError | undefined
  ) {
    this.view = base
  }

  private refused(verb: CallVerb, resource: ResourceType, namespace: string | undefined, name: string | undefined, subresource?: string, options?: CallQuery): ApiError | undefined {
    let attrs = this.lastAttributes
    if (
      attrs === undefined ||
      options !== undefined ||
      verb !== this.lastVerb ||
      resource !== this.lastResource ||
      namespace !== this.lastNamespace ||
      name !== this.lastName ||
      subresource !== this.lastSubresource
    ) {
      attrs = callAttributes(verb, resource, namespace, name, subresource, options)
      this.lastVerb = verb
      this.lastResource = resource
      this.lastNamespace = namespace
      this.lastName = name
      this.lastSubresource = subresource
      this.lastAttributes = options === undefined ? attrs : undefined
    }
    if (this.permissions === undefined) return this.admit(this.now, attrs)
    return this.permissions.allows(attrs) ? undefined : this.access.refusal(this.user!, attrs)
  }

  get(resource: ResourceType, name: string, opts?: GetOptions) {
    const e = this.refused("get", resource, opts?.namespace, name)
    return e ? Either.left(e) : this.view.get(resource, name, opts)
  }
  list(resource: ResourceType, opts?: ListOptions) {
    const e = this.refused("list", resource, opts?.namespace, undefined, undefined, opts)
    return e ? Either.left(e) : this.view.list(resource, opts)
  }
  create(resource: ResourceType, obj: unknown, opts?: WriteOptions) {
    // RBAC objects take the effectful path, which hands the caller on for the escalation check.
    if (resource.virtual || resource.group === rbacGroup) return this.effectful.create(resource, obj, opts)
    const e = this.refused("create", resource, opts?.namespace, opts?.subresource ? (nameOf(obj) ?? "") : undefined, opts?.subresource)
    return e ? Either.left(e) : this.view.create(resource, obj, opts)
  }
  update(resource: ResourceType, obj: KObject, opts?: WriteOptions) {
    if (resource.group === rbacGroup) return this.effectful.update(resource, obj, opts)
    const e = this.refused("update", resource, opts?.namespace ?? obj.metadata.namespace, nameOf(obj), opts?.subresource)
    return e ? Either.left(e) : this.view.update(resource, obj, opts)
  }
  patch(resource: ResourceType, name: string, patchType: PatchType, patch: unknown, opts?: WriteOptions) {
    if (resource.group === rbacGroup) return this.effectful.patch(resource, name, patchType, patch, opts)
    const e = this.refused("patch", resource, opts?.namespace, name, opts?.subresource)
    return e ? Either.left(e) : this.view.patch(resource, name, patchType, patch, opts)
  }
  delete(resource: ResourceType, name: string, opts?: DeleteOptions) {
    const e = this.refused("delete", resource, opts?.namespace, name)
    return e ? Either.left(e) : this.view.delete(resource, name, opts)
  }
  deleteCollection(resource: ResourceType, opts?: ListOptions & DeleteOptions) {
    return this.effectful.deleteCollection(resource, opts)
  }
  watch(resource: ResourceType, opts?: WatchOptions) {
    return this.effectful.watch(resource, opts)
  }
  pullWatch(resource: ResourceType, opts?: WatchOptions) {
    return openWatchPull(this.effectful, resource, opts)
  }
}
