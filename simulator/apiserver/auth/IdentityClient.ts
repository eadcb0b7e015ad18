/**
 * An in-process client acting as one identity: every call is authenticated (a token is checked at the call's time,
 * so it expires in virtual time) and authorized as the same request over HTTP would be, and the access reviews
 * answer for that identity. A misconfigured role therefore shows up as 403s in a simulated run, as in a real
 * cluster. A client certificate is checked once: it cannot expire in the simulation.
 */
import { Clock, Effect, Either, Stream } from "effect"
import type { ResourceType } from "../../../src/api/Resources.js"
import type { ApiError } from "../../../src/api/Status.js"
import type { ApiClientService } from "../../../src/client/ApiClient.js"
import type { AccessControl } from "./AccessControl.js"
import type { Credentials } from "./Authenticator.js"
import { callAttributes, type ResourceAttributes } from "./RequestAttributes.js"
import type { UserInfo } from "./UserInfo.js"

/** `metadata.name=<x>` as a list's or watch's only name requirement, which upstream authorizes as that name. */
const selectedName = (fieldSelector: string | undefined): string | undefined => {
  if (fieldSelector === undefined) return undefined
  const m = /(?:^|,)\s*metadata\.name\s*==?\s*([^,]*)/.exec(fieldSelector)
  return m ? m[1]!.trim() : undefined
}

const nameOf = (obj: unknown): string | undefined => (obj as { metadata?: { name?: string } } | undefined)?.metadata?.name

/** Reviews answered for a user (the server's `review`). */
export type Reviewer = (resource: Parameters<ApiClientService["create"]>[0], body: unknown, caller: UserInfo) => ReturnType<ApiClientService["create"]>

export const identityClient = (access: AccessControl, credentials: Credentials, client: ApiClientService, reviewer: Reviewer): ApiClientService => {
  // A verified certificate names the same user on every call.
  const fixed = credentials.authorization === undefined && credentials.clientCertificate !== undefined ? access.authenticate(credentials, 0) : undefined
  const userAt = (now: number): Either.Either<UserInfo, ApiError> => fixed ?? access.authenticate(credentials, now)
  // and its permissions are found once (thousands of node agents: no lookup of the user per request)
  const authorizeFixed = fixed !== undefined && Either.isRight(fixed) ? access.authorizerFor(fixed.right) : undefined
  const admitAt = (now: number, attrs: ResourceAttributes): Either.Either<UserInfo, ApiError> => {
    const user = userAt(now)
    if (Either.isLeft(user)) return user
    const denied = authorizeFixed !== undefined ? authorizeFixed(attrs) : access.authorize(user.right, attrs)
    return denied ? Either.left(denied) : user
  }
  /** The effectful verbs: each call is checked at the Clock time when it runs. */
  const effectful = ((): ApiClientService => {
    const checked = <A>(attrs: ResourceAttributes, run: (user: UserInfo) => Effect.Effect<A, ApiError>): Effect.Effect<A, ApiError> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => Either.match(admitAt(now, attrs), { onLeft: (e) => Effect.fail(e), onRight: run }))
    return {
      get: (resource, name, opts) => checked(callAttributes("get", resource, opts?.namespace, name), () => client.get(resource, name, opts)),
      list: (resource, opts) => checked(callAttributes("list", resource, opts?.namespace, selectedName(opts?.fieldSelector)), () => client.list(resource, opts)),
      create: (resource, obj, opts) =>
        checked(callAttributes("create", resource, opts?.namespace, opts?.subresource ? nameOf(obj) : undefined, opts?.subresource), (user) =>
          resource.virtual ? reviewer(resource, obj, user) : client.create(resource, obj, opts)
        ),
      update: (resource, obj, opts) => checked(callAttributes("update", resource, opts?.namespace, nameOf(obj), opts?.subresource), () => client.update(resource, obj, opts)),
      patch: (resource, name, patchType, patch, opts) =>
        checked(callAttributes("patch", resource, opts?.namespace, name, opts?.subresource), () => client.patch(resource, name, patchType, patch, opts)),
      delete: (resource, name, opts) => checked(callAttributes("delete", resource, opts?.namespace, name), () => client.delete(resource, name, opts)),
      deleteCollection: (resource, opts) => checked(callAttributes("deletecollection", resource, opts?.namespace, undefined), () => client.deleteCollection(resource, opts)),
      watch: (resource, opts) =>
        Stream.unwrap(checked(callAttributes("watch", resource, opts?.namespace, selectedName(opts?.fieldSelector)), () => Effect.succeed(client.watch(resource, opts))))
    }
  })()
  if (client.at === undefined) return effectful
  const at = client.at
  // The immediate view answers synchronously, so one scratch attribute record and one view object serve every call
  // (thousands of agents' requests per virtual second: nothing is allocated to let one through).
  let viewNow = 0
  let view: ApiClientService = client
  const scratch: { -readonly [K in keyof ResourceAttributes]: ResourceAttributes[K] } = callAttributes("get", { group: "", version: "", plural: "", namespaced: false }, undefined, undefined)
  const refused = (verb: string, resource: ResourceType, namespace: string | undefined, name: string | undefined, subresource?: string): ApiError | undefined => {
    scratch.verb = verb
    scratch.apiGroup = resource.group
    scratch.apiVersion = resource.version
    scratch.resource = resource.plural
    scratch.subresource = subresource ?? ""
    scratch.namespace = resource.namespaced ? (namespace ?? "") : resource.plural === "namespaces" ? (name ?? "") : ""
    scratch.name = name ?? ""
    const user = admitAt(viewNow, scratch)
    return Either.isLeft(user) ? user.left : undefined
  }
  const immediate: ApiClientService = {
    get: (resource, name, opts) => {
      const e = refused("get", resource, opts?.namespace, name)
      return e ? Either.left(e) : view.get(resource, name, opts)
    },
    list: (resource, opts) => {
      const e = refused("list", resource, opts?.namespace, selectedName(opts?.fieldSelector))
      return e ? Either.left(e) : view.list(resource, opts)
    },
    create: (resource, obj, opts) => {
      if (resource.virtual) return effectful.create(resource, obj, opts)
      const e = refused("create", resource, opts?.namespace, opts?.subresource ? nameOf(obj) : undefined, opts?.subresource)
      return e ? Either.left(e) : view.create(resource, obj, opts)
    },
    update: (resource, obj, opts) => {
      const e = refused("update", resource, opts?.namespace, nameOf(obj), opts?.subresource)
      return e ? Either.left(e) : view.update(resource, obj, opts)
    },
    patch: (resource, name, patchType, patch, opts) => {
      const e = refused("patch", resource, opts?.namespace, name, opts?.subresource)
      return e ? Either.left(e) : view.patch(resource, name, patchType, patch, opts)
    },
    delete: (resource, name, opts) => {
      const e = refused("delete", resource, opts?.namespace, name)
      return e ? Either.left(e) : view.delete(resource, name, opts)
    },
    deleteCollection: (resource, opts) => effectful.deleteCollection(resource, opts),
    watch: (resource, opts) => effectful.watch(resource, opts)
  }
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
    at: (now: number) => {
      const base = at(now)
      if (base === undefined) return undefined
      viewNow = now
      view = base
      return immediate
    }
  }
}
