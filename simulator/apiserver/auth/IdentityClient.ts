/**
 * An in-process client acting as one identity: every call is authenticated (a token is checked at the call's time,
 * so it expires in virtual time) and authorized as the same request over HTTP would be, and the access reviews
 * answer for that identity. A misconfigured role therefore shows up as 403s in a simulated run, as in a real
 * cluster. A client certificate is checked once: it cannot expire in the simulation.
 */
import { Clock, Effect, Either, Stream } from "effect"
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
  const admitAt = (now: number, attrs: ResourceAttributes): Either.Either<UserInfo, ApiError> => {
    const user = userAt(now)
    if (Either.isLeft(user)) return user
    const denied = access.authorize(user.right, attrs)
    return denied ? Either.left(denied) : user
  }
  const guard = (base: ApiClientService, clockNow: (() => Effect.Effect<number>) | number): ApiClientService => {
    const checked = <A>(attrs: ResourceAttributes, run: (user: UserInfo) => Effect.Effect<A, ApiError>): Effect.Effect<A, ApiError> =>
      typeof clockNow === "number"
        ? Either.match(admitAt(clockNow, attrs), { onLeft: (e): Effect.Effect<A, ApiError> => Either.left(e), onRight: run })
        : Effect.flatMap(clockNow(), (now) => Either.match(admitAt(now, attrs), { onLeft: (e) => Effect.fail(e), onRight: run }))
    return {
      get: (resource, name, opts) => checked(callAttributes("get", resource, opts?.namespace, name), () => base.get(resource, name, opts)),
      list: (resource, opts) => checked(callAttributes("list", resource, opts?.namespace, selectedName(opts?.fieldSelector)), () => base.list(resource, opts)),
      create: (resource, obj, opts) =>
        checked(callAttributes("create", resource, opts?.namespace, opts?.subresource ? nameOf(obj) : undefined, opts?.subresource), (user) =>
          resource.virtual ? reviewer(resource, obj, user) : base.create(resource, obj, opts)
        ),
      update: (resource, obj, opts) => checked(callAttributes("update", resource, opts?.namespace, nameOf(obj), opts?.subresource), () => base.update(resource, obj, opts)),
      patch: (resource, name, patchType, patch, opts) =>
        checked(callAttributes("patch", resource, opts?.namespace, name, opts?.subresource), () => base.patch(resource, name, patchType, patch, opts)),
      delete: (resource, name, opts) => checked(callAttributes("delete", resource, opts?.namespace, name), () => base.delete(resource, name, opts)),
      deleteCollection: (resource, opts) => checked(callAttributes("deletecollection", resource, opts?.namespace, undefined), () => base.deleteCollection(resource, opts)),
      watch: (resource, opts) =>
        Stream.unwrap(checked(callAttributes("watch", resource, opts?.namespace, selectedName(opts?.fieldSelector)), () => Effect.succeed(base.watch(resource, opts))))
    }
  }
  const effectful = guard(client, () => Clock.currentTimeMillis)
  let instant = Number.NaN
  let immediate: ApiClientService | undefined
  return {
    ...effectful,
    ...(client.at
      ? {
          at: (now: number) => {
            const base = client.at!(now)
            if (base === undefined) return undefined
            if (now !== instant || immediate === undefined) {
              instant = now
              immediate = guard(base, now)
            }
            return immediate
          }
        }
      : {})
  }
}
