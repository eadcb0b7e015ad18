/**
 * What authorization sees of a request: upstream's `authorizer.Attributes` as `GetAuthorizerAttributes`
 * (`apiserver/pkg/endpoints/filters/authorization.go`) takes them from the request's RequestInfo
 * (../RequestInfo.ts) — resource requests carry verb, API group, version, resource, subresource, namespace and
 * name; everything else (discovery, /healthz, /version) is a non-resource request with the lower-cased HTTP method
 * as its verb. No URL is read here. Pure.
 */
import { callRequestInfo, type CallQuery, type CallTarget, type CallVerb, type RequestInfo } from "../RequestInfo.js"

export interface ResourceAttributes {
  readonly resourceRequest: true
  readonly verb: string
  readonly apiGroup: string
  readonly apiVersion: string
  readonly resource: string
  readonly subresource: string
  readonly namespace: string
  readonly name: string
}

export interface NonResourceAttributes {
  readonly resourceRequest: false
  readonly verb: string
  readonly path: string
}

export type RequestAttributes = ResourceAttributes | NonResourceAttributes

/** The attributes of a request, from its RequestInfo. */
export const attributesOf = (info: RequestInfo): RequestAttributes =>
  info.isResourceRequest
    ? {
        resourceRequest: true,
        verb: info.verb,
        apiGroup: info.apiGroup,
        apiVersion: info.apiVersion,
        resource: info.resource,
        subresource: info.subresource,
        namespace: info.namespace,
        name: info.name
      }
    : { resourceRequest: false, verb: info.verb, path: info.path }

/** The attributes of a call made without a URL (the in-process client): those of the URL it stands for. */
export const callAttributes = (
  verb: CallVerb,
  resource: CallTarget,
  namespace: string | undefined,
  name: string | undefined,
  subresource?: string | undefined,
  options?: CallQuery
): ResourceAttributes => attributesOf(callRequestInfo(verb, resource, namespace, name, subresource, options)) as ResourceAttributes
