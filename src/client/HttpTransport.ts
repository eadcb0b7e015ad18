/** The HTTP side of `ApiClient`: URL layout, query parameters, Status decoding and watch framing, over undici. */
import { Deferred, Effect, FiberId, Stream } from "effect"
import { Agent, type Dispatcher } from "undici"
import { type KList, type KObject, type WatchEvent } from "../api/Object.js"
import { extendable } from "../api/internal/V8Shapes.js"
import { tlsConnectOptions } from "./Probe.js"
import type { DeleteOptions, GetOptions, ListOptions, PatchType, WatchOptions, WriteOptions } from "../api/Requests.js"
import { apiVersionOf, type ResourceType } from "../api/Resources.js"
import * as Status from "../api/Status.js"
import { ApiError } from "../api/Status.js"
import type { DirectMeasure, HttpClientService, RawAnswer, RawRequest, RawSender } from "./Capabilities.js"
import type { HttpClientOptions, TrafficCounter } from "./HttpClientOptions.js"
import { answerFromTarget, apiNamesFromGroups, bodyToTarget, eventFromTarget, groupNamesOf, specNames, type ApiNames } from "./ApiNames.js"
import { decodeInTurnBytes, decodeInTurns } from "./DecodeTurns.js"
import { type Answer, exchange, exchangeEffect, type KeepBody } from "./Exchange.js"
import { acceptHeader, decodeAnswer, decodeAnswerInSteps, isProtobufStream, objectBody, type WireEncoding } from "./WireEncoding.js"
import { watchFrameDecoder } from "../api/protobuf/Envelope.js"
import { withCredential, type Credential } from "./auth/Credential.js"
import { credentialSourceFor } from "./auth/ClientCredentials.js"
import { type ClientError, type TransportError, transportFailure } from "./TransportError.js"

export type { HttpClientOptions, TrafficCounter } from "./HttpClientOptions.js"

const patchContentTypes: Record<PatchType, string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml"
}

/** `/api/v1/namespaces/ns/pods/name/status` */
export const resourcePath = (resource: ResourceType, namespace: string | undefined, name?: string, subresource?: string): string => {
  let path = resource.group ? `/apis/${apiVersionOf(resource)}` : `/api/${resource.version}`
  if (resource.namespaced && namespace) path += `/namespaces/${encodeURIComponent(namespace)}`
  path += `/${resource.plural}`
  if (name !== undefined) path += `/${encodeURIComponent(name)}`
  if (subresource) path += `/${subresource}`
  return path
}

const queryString = (params: Record<string, string | number | boolean | ReadonlyArray<string> | undefined>): string => {
  // most requests of a load run have no parameters: no URLSearchParams for them
  if (Object.values(params).every((v) => v === undefined)) return ""
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue
    if (Array.isArray(v)) for (const item of v) q.append(k, item)
    else q.set(k, String(v))
  }
  const s = q.toString()
  return s ? `?${s}` : ""
}

/** `299 - "unknown field \"spec.foo\""` → `unknown field "spec.foo"` */
export const parseWarning = (header: string): string => {
  const m = /^\d{3} \S+ "((?:[^"\\]|\\.)*)"/.exec(header)
  return m ? m[1]!.replace(/\\(.)/g, "$1") : header
}


/** A non-2xx answer as an ApiError: the Status it carries (JSON or protobuf), or one made from the code and text. */
const errorFrom = (code: number, bytes: Buffer, contentType?: string): ApiError => {
  try {
    const parsed = decodeAnswer(contentType, bytes) as Status.Status
    if (parsed && parsed.kind === "Status") return new ApiError({ status: parsed })
  } catch {
    // not a Status: fall through
  }
  return new ApiError({ status: Status.makeStatus({ code, message: bytes.toString("utf8").trim(), reason: code === 404 ? "NotFound" : undefined }) })
}

const contentTypeOf = (headers: Dispatcher.ResponseData["headers"]): string | undefined => {
  const v = headers["content-type"]
  return Array.isArray(v) ? v[0] : v
}


/**
 * The chunks of a streaming body, backpressured (the body pauses until the chunk is queued). Not
 * `Stream.fromAsyncIterable`: its finalizer awaits the iterator's `return()`, which an async generator only
 * runs after the pending `next()` settles — so interrupting an idle watch would hang until the next event.
 */
const bodyChunks = (body: Dispatcher.ResponseData["body"], url: string, countIn: (bytes: number) => void): Stream.Stream<Buffer, TransportError> =>
  Stream.async<Buffer, TransportError>((emit) => {
    body.on("data", (chunk: Buffer) => {
      countIn(chunk.length)
      body.pause()
      void emit.single(chunk).then(() => body.resume())
    })
    body.once("end", () => void emit.end())
    body.once("error", (e) => void emit.fail(transportFailure(url, e)))
    return Effect.sync(() => {
      body.destroy()
    })
  })

/**
 * undici agents per client certificate: the configured one, and the latest an exec plugin returned. `long`: agents
 * for long-running requests, without a cap on connections (each holds one for its life), destroyed at the end (a
 * graceful close would wait for streams nobody reads any more).
 */
const makeDispatchers = (options: HttpClientOptions, long = false) =>
  Effect.gen(function* () {
    const agentFor = (tls: HttpClientOptions["tls"]) =>
      new Agent({ connections: long ? null : (options.connections ?? 64), pipelining: 1, keepAliveTimeout: 30_000, connect: tlsConnectOptions(tls) })
    const end = (agent: Agent) => Effect.promise(() => (long ? agent.destroy() : agent.close()))
    const main: Agent = yield* Effect.acquireRelease(Effect.sync(() => agentFor(options.tls)), end)
    let rotated: { cert: Credential["clientCertificate"]; agent: Agent } | undefined
    yield* Effect.addFinalizer(() => (rotated ? end(rotated.agent) : Effect.void))
    return (credential: Credential | undefined): Dispatcher => {
      const cert = credential?.clientCertificate
      if (!cert) return main
      if (rotated?.cert !== cert) {
        // client-go closes every connection when the plugin's certificate changes (connTracker.CloseAll)
        const previous = rotated?.agent
        rotated = { cert, agent: agentFor({ ...options.tls, cert: cert.cert, key: cert.key }) }
        if (previous) void (long ? previous.destroy() : previous.close())
      }
      return rotated.agent
    }
  })

export const makeHttpClient = (options: HttpClientOptions) =>
  Effect.gen(function* () {
    const dispatcherFor = yield* makeDispatchers(options)
    // a raw long-running request (a replayed watch) holds its connection for its whole life: its own pool, or the
    // watches of a log replayed at speed take the short requests' connections and those queue (docs/replay.md)
    const longDispatcherFor = yield* makeDispatchers(options, true)
    const base = options.baseUrl.replace(/\/$/, "")
    // An Authorization header set by the caller wins over every credential source, as in client-go.
    const source =
      options.headers?.authorization === undefined
        ? (options.credentials ??
          credentialSourceFor({
            ...(options.token ? { token: options.token } : {}),
            ...(options.tokenFile ? { tokenFile: options.tokenFile } : {}),
            ...(options.exec ? { exec: options.exec } : {}),
            hasClientCertificate: options.tls?.cert !== undefined
          }))
        : undefined
    /** A request under the client's credentials: none, or the source's, told of a 401. */
    const authorized = <A, R>(send: (credential: Credential | undefined) => Effect.Effect<A, ClientError, R>): Effect.Effect<A, ClientError, R> =>
      source ? withCredential(source, send, base) : send(undefined)
    /** A request that got no answer: refused, reset, a TLS or DNS failure (TransportError.ts), never a made-up Status. */
    const connectionError = (e: unknown): TransportError => transportFailure(base, e)
    // The target's group and namespace names (ApiNames), shared by every variant of the client (`variant`).
    let names: ApiNames | undefined
    let discovering: Deferred.Deferred<ApiNames> | undefined
    const build = (encoding: WireEncoding, counters: ReadonlyArray<TrafficCounter>): HttpClientService => {
      const countIn = (bytes: number) => {
        for (const c of counters) c.bytesIn += bytes
      }
      const baseHeaders: Record<string, string> = {
        "user-agent": "clustersim/0.1",
        accept: acceptHeader(encoding),
        ...options.headers
      }
      let lastCredential: Credential | undefined
      let lastHeaders = baseHeaders
      const headersFor = (credential: Credential | undefined): Record<string, string> => {
        if (credential === undefined || credential.token === undefined) return baseHeaders
        if (credential !== lastCredential) {
          lastCredential = credential
          lastHeaders = { ...baseHeaders, authorization: `Bearer ${credential.token}` }
        }
        return lastHeaders
      }

      /** An answer's bytes counted; its failure when not 2xx. */
      const settle = (r: Answer): ApiError | undefined => {
        for (const c of counters) {
          c.bytesIn += r.bytesIn
          c.bytesOut += r.bytesOut
        }
        return r.code >= 200 && r.code < 300 ? undefined : errorFrom(r.code, r.body, r.contentType)
      }
      /** `body`: JSON (a value or its text) with `contentType`, or an encoded object body. A non-2xx answer fails. */
      const send = (method: Dispatcher.HttpMethod, path: string, body?: unknown, contentType = "application/json", keep: KeepBody = "always") => {
        const payload = body === undefined ? undefined : typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body)
        return authorized((credential) => {
          const headers = headersFor(credential)
          const request = { origin: base, path, method, headers: body === undefined ? headers : { ...extendable, ...headers, "content-type": contentType }, body: payload }
          return Effect.flatMap(exchangeEffect(dispatcherFor(credential), request, keep, connectionError), (r) => {
            const failure = settle(r)
            return failure === undefined ? Effect.succeed(r) : Effect.fail(failure)
          })
        })
      }
      /** `measure` as a plain call: no credential source (each request would consult it) and the names known. */
      const directMeasure = (n: ApiNames, verb: "GET" | "DELETE", resource: ResourceType, opts: GetOptions | undefined): DirectMeasure => {
        const collection = pathOf(n, resource, opts?.namespace)
        const query = verb === "GET" ? queryString({ resourceVersion: opts?.resourceVersion }) : ""
        const dispatcher = dispatcherFor(undefined)
        // a load action GETs one name, or a few: the path is built again only when the name changes
        let lastName: string | undefined
        let path = ""
        return (name, done) => {
          if (name !== lastName) {
            lastName = name
            path = `${collection}/${encodeURIComponent(name)}${query}`
          }
          exchange(dispatcher, { origin: base, path, method: verb, headers: baseHeaders }, "errors", (error, r) =>
            done(r === undefined ? connectionError(error) : settle(r))
          )
        }
      }
      /** A JSON object's `metadata.resourceVersion` (the request asked for JSON), or nothing. */
      const resourceVersionIn = (body: Buffer): { resourceVersion?: string } => {
        try {
          const rv = (JSON.parse(body.toString("utf8")) as { metadata?: { resourceVersion?: unknown } }).metadata?.resourceVersion
          return typeof rv === "string" ? { resourceVersion: rv } : {}
        } catch {
          return {}
        }
      }
      /** Requests as given (`RawSending`, Capabilities.ts): the client's headers and credential, then the request's own headers. */
      const rawSender = (): RawSender => {
        const flat = (credential: Credential | undefined, extra: ReadonlyArray<string>): Array<string> => [
          ...Object.entries(headersFor(credential)).flat(),
          ...extra
        ]
        const statusMessage = (r: Answer): string | undefined => {
          const e = errorFrom(r.code, r.body, r.contentType)
          return e.status.message || undefined
        }
        const short = (q: RawRequest) =>
          authorized((credential) =>
            Effect.flatMap(
              exchangeEffect(
                dispatcherFor(credential),
                { origin: base, path: q.path, method: q.method as Dispatcher.HttpMethod, headers: flat(credential, q.headers), body: q.body },
                q.readResourceVersion ? "always" : "errors",
                connectionError
              ),
              (r): Effect.Effect<RawAnswer, ClientError> => {
                for (const c of counters) {
                  c.bytesIn += r.bytesIn
                  c.bytesOut += r.bytesOut
                }
                const ok = r.code >= 200 && r.code < 300
                if (ok && q.readResourceVersion) return Effect.succeed({ code: r.code, ...resourceVersionIn(r.body) })
                const message = ok ? undefined : statusMessage(r)
                return Effect.succeed(message === undefined ? { code: r.code } : { code: r.code, message })
              }
            )
          )
        const long = (q: RawRequest) =>
          authorized((credential) =>
            Effect.tryPromise({
              try: async (): Promise<RawAnswer> => {
                const controller = new AbortController()
                const res = await longDispatcherFor(credential).request({
                  origin: base,
                  path: q.path,
                  method: q.method as Dispatcher.HttpMethod,
                  headers: flat(credential, q.headers),
                  body: q.body ?? null,
                  signal: controller.signal
                })
                const ended = new Promise<void>((resolve) => {
                  res.body.on("data", (chunk: Buffer) => countIn(chunk.length))
                  res.body.once("end", () => resolve())
                  res.body.once("error", () => resolve())
                  res.body.once("close", () => resolve())
                })
                const close = () => {
                  controller.abort()
                  res.body.destroy()
                }
                if (res.statusCode >= 200 && res.statusCode < 300) return { code: res.statusCode, close, ended }
                const bytes = Buffer.from(await res.body.arrayBuffer())
                const message = errorFrom(res.statusCode, bytes, contentTypeOf(res.headers)).status.message
                return { code: res.statusCode, ...(message ? { message } : {}), close: () => {}, ended: Promise.resolve() }
              },
              catch: connectionError
            })
          )
        return { origin: base, send: (q) => (q.longRunning ? long(q) : short(q)) }
      }
      /** A 2xx answer's value by its Content-Type, and its warnings. */
      const decoded = (r: Answer, value: unknown) => ({ code: r.code, warnings: r.warnings.map(parseWarning), value })
      // a large answer is decoded in turns of its own, a list's items a slice per turn (DecodeTurns, ListInSlices)
      const call = (method: Dispatcher.HttpMethod, path: string, body?: unknown, contentType?: string) =>
        Effect.flatMap(send(method, path, body, contentType), (r) =>
          r.bytesIn <= decodeInTurnBytes
            ? Effect.succeed(decoded(r, decodeAnswer(r.contentType, r.body)))
            : Effect.map(
                decodeInTurns(() => decodeAnswerInSteps(r.contentType, r.body, decodeInTurnBytes)),
                (value) => decoded(r, value)
              )
        )

      const write = (method: Dispatcher.HttpMethod, path: string, body: unknown, opts: WriteOptions | undefined, contentType?: string) =>
        Effect.map(
          call(method, path + queryString({ dryRun: opts?.dryRun, fieldValidation: opts?.fieldValidation, fieldManager: opts?.fieldManager, force: opts?.force }), body, contentType),
          (r) => ({ code: r.code, object: r.value as KObject, warnings: r.warnings })
        )
      /** A create or update: the object in the client's encoding where it has a lossless form there. */
      const writeObject = (method: Dispatcher.HttpMethod, resource: ResourceType, path: string, obj: unknown, opts: WriteOptions | undefined) => {
        const body = objectBody(encoding, resource, obj)
        return write(method, path, body.payload, opts, body.contentType)
      }

      const translated = <E>(n: ApiNames, result: Effect.Effect<{ code: number; object: KObject; warnings: ReadonlyArray<string> }, E>) =>
        n.translates ? Effect.map(result, (r) => ({ ...r, object: answerFromTarget(n, r.object) })) : result

      const listQuery = (opts: ListOptions | undefined) =>
        queryString({
          labelSelector: opts?.labelSelector,
          fieldSelector: opts?.fieldSelector,
          limit: opts?.limit,
          continue: opts?.continue,
          resourceVersion: opts?.resourceVersion,
          resourceVersionMatch: opts?.resourceVersionMatch,
          sendInitialEvents: opts?.sendInitialEvents
        })

      const deleteBody = (opts: DeleteOptions | undefined) => {
        if (!opts) return undefined
        const { namespace: _n, ...rest } = opts
        const fields = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined))
        return Object.keys(fields).length > 0 ? { kind: "DeleteOptions", apiVersion: "v1", ...fields } : undefined
      }

      // The target's names, discovered once with the first request. Concurrent first requests share one discovery;
      // only a connection failure leaves it to be tried again.
      const discoverNames = Effect.suspend(() => {
        if (discovering) return Deferred.await(discovering)
        const done = Deferred.unsafeMake<ApiNames>(FiberId.none)
        discovering = done
        let found: ApiNames = specNames
        return call("GET", "/apis").pipe(
          Effect.map((r) => (names = found = apiNamesFromGroups(groupNamesOf(r.value)))),
          Effect.catchAll((e) => Effect.sync(() => (e._tag === "TransportError" ? specNames : (names = specNames)))),
          Effect.ensuring(Effect.suspend(() => ((discovering = undefined), Deferred.succeed(done, names ?? found))))
        )
      })
      const withNames = <A, E>(f: (names: ApiNames) => Effect.Effect<A, E>): Effect.Effect<A, E> =>
        names !== undefined ? f(names) : Effect.flatMap(discoverNames, f)
      /** The target's path of a resource named in the spec's names. */
      const pathOf = (n: ApiNames, resource: ResourceType, namespace: string | undefined, name?: string, subresource?: string) =>
        n.translates ? resourcePath(n.resource(resource), namespace === undefined ? undefined : n.namespaceToTarget(namespace), name, subresource) : resourcePath(resource, namespace, name, subresource)

      const service: HttpClientService = {
        get: (resource, name, opts) =>
          withNames((n) =>
            Effect.map(call("GET", pathOf(n, resource, opts?.namespace, name) + queryString({ resourceVersion: opts?.resourceVersion })), (r) => answerFromTarget(n, r.value as KObject))
          ),
        list: (resource, opts) =>
          withNames((n) => Effect.map(call("GET", pathOf(n, resource, opts?.namespace) + listQuery(opts)), (r) => answerFromTarget(n, r.value as KList))),
        create: (resource, obj, opts) =>
          withNames((n) => {
            const sub = opts?.subresource
            const name = sub ? ((obj as KObject).metadata?.name ?? "") : undefined
            return translated(n, writeObject("POST", n.resource(resource), pathOf(n, resource, opts?.namespace, name, sub), bodyToTarget(n, obj), opts))
          }),
        update: (resource, obj, opts) =>
          withNames((n) =>
            translated(
              n,
              writeObject("PUT", n.resource(resource), pathOf(n, resource, opts?.namespace ?? obj.metadata.namespace, obj.metadata.name ?? "", opts?.subresource), bodyToTarget(n, obj), opts)
            )
          ),
        patch: (resource, name, patchType, patch, opts) =>
          withNames((n) => translated(n, write("PATCH", pathOf(n, resource, opts?.namespace, name, opts?.subresource), patch, opts, patchContentTypes[patchType]))),
        delete: (resource, name, opts) =>
          withNames((n) =>
            Effect.map(call("DELETE", pathOf(n, resource, opts?.namespace, name), deleteBody(opts)), (r) => {
              const value = answerFromTarget(n, r.value as KObject & { kind?: string })
              return value.kind === "Status" ? { code: r.code, status: value as unknown as Status.Status } : { code: r.code, object: value }
            })
          ),
        measure: (verb, resource, name, opts) =>
          withNames((n) =>
            Effect.map(
              send(verb, pathOf(n, resource, opts?.namespace, name) + (verb === "GET" ? queryString({ resourceVersion: opts?.resourceVersion }) : ""), undefined, undefined, "errors"),
              (r) => ({ code: r.code, bytesIn: r.bytesIn, bytesOut: r.bytesOut })
            )
          ),
        directMeasure: (verb, resource, opts) =>
          source !== undefined
            ? Effect.succeed(undefined)
            : // discovery first; a failed one (connection error) leaves `names` unset and the Effect form, which tries again
              Effect.map(withNames(Effect.succeed), () => (names === undefined ? undefined : directMeasure(names, verb, resource, opts))),
        variant: (o) => build(o.encoding ?? encoding, o.traffic ? [...counters, o.traffic] : counters),
        raw: rawSender(),
        deleteCollection: (resource, opts) =>
          withNames((n) => Effect.map(call("DELETE", pathOf(n, resource, opts?.namespace) + listQuery(opts), deleteBody(opts)), (r) => answerFromTarget(n, r.value as KList))),
        watch: (resource, opts?: WatchOptions) =>
          Stream.unwrapScoped(
            Effect.gen(function* () {
              const n = names ?? (yield* discoverNames)
              const fromTarget = (event: WatchEvent) => eventFromTarget(n, event)
              const path =
                pathOf(n, resource, opts?.namespace) +
                queryString({
                  watch: "true",
                  labelSelector: opts?.labelSelector,
                  fieldSelector: opts?.fieldSelector,
                  resourceVersion: opts?.resourceVersion,
                  resourceVersionMatch: opts?.resourceVersionMatch,
                  allowWatchBookmarks: opts?.allowWatchBookmarks,
                  sendInitialEvents: opts?.sendInitialEvents,
                  continue: opts?.continue,
                  timeoutSeconds: opts?.timeoutSeconds
                })
              const controller = new AbortController()
              // Abort on scope close, and wait for the response headers interruptibly: a server that holds them
              // back (paused, slow) must not keep the watch's owner from being interrupted.
              yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
              const res = yield* authorized((credential) =>
                Effect.gen(function* () {
                  const res = yield* Effect.tryPromise({
                    try: () => dispatcherFor(credential).request({ origin: base, path, method: "GET", headers: headersFor(credential), signal: controller.signal }),
                    catch: connectionError
                  })
                  yield* Effect.addFinalizer(() => Effect.sync(() => res.body.destroy()))
                  if (res.statusCode !== 200) {
                    const bytes = yield* Effect.promise(() => res.body.arrayBuffer())
                    return yield* Effect.fail(errorFrom(res.statusCode, Buffer.from(bytes), contentTypeOf(res.headers)))
                  }
                  return res
                })
              )
              if (isProtobufStream(contentTypeOf(res.headers))) {
                const frames = watchFrameDecoder()
                return bodyChunks(res.body, base, countIn).pipe(
                  Stream.mapConcatEffect((chunk) => Effect.try({ try: () => frames(chunk), catch: (e) => Status.internal(`watch stream: ${(e as Error).message}`) })),
                  Stream.map(fromTarget)
                )
              }
              return bodyChunks(res.body, base, countIn).pipe(
                Stream.decodeText(),
                Stream.splitLines,
                Stream.filter((line) => line.length > 0),
                Stream.map((line) => fromTarget(JSON.parse(line) as WatchEvent))
              )
            })
          ).pipe(Stream.catchAll((e) => (e._tag === "TransportError" && e.description.includes("aborted") ? Stream.empty : Stream.fail(e))))
      }
      return service
    }
    return build(options.encoding ?? "json", options.traffic ? [options.traffic] : [])
  })
