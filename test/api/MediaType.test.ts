import { describe, expect, it } from "@effect/vitest"
import { Either, Option } from "effect"
import { negotiate, protobufResponseMediaType, requestBodyFormat } from "../../src/api/MediaType.js"
import type { ApiError } from "../../src/api/Status.js"

const statusOf = <A>(r: Either.Either<A, ApiError>) => Either.getLeft(r).pipe(Option.getOrThrow).status
const item = { watch: false }
const list = { watch: false, collection: true }
const watch = { watch: true }

const routeNotAcceptable = (types: string) => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: `406: Not Acceptable\n\nAvailable representations: ${types}`,
  reason: "NotAcceptable",
  details: {},
  code: 406
})
const handlerNotAcceptable = (types: string) => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: `only the following media types are accepted: ${types}`,
  reason: "NotAcceptable",
  code: 406
})
const objectTypes = "application/json, application/yaml, application/vnd.platform.protobuf"
const streamTypes = "application/json;stream=watch, application/vnd.platform.protobuf;stream=watch"

describe("negotiate", () => {
  it("serves JSON for an empty, wildcard or JSON Accept", () => {
    for (const accept of [undefined, "", "*/*", "application/json", " application/json ; charset=utf-8", "text/html, */*;q=0.8"]) {
      expect(negotiate(accept, item)).toEqual(Either.right("json"))
    }
  })

  it("takes application/* once the route matched on another entry", () => {
    expect(negotiate("application/*, text/html, application/yaml", item)).toEqual(Either.right("json"))
  })

  it("renders a JSON Table under the meta group and version asked for, by this API's name or upstream's", () => {
    expect(negotiate("application/json;as=Table;v=v1;g=meta.platform, application/json", item)).toEqual(Either.right({ _tag: "table", apiVersion: "meta.platform/v1" }))
    expect(negotiate("application/json;as=Table;v=v1beta1;g=meta.platform,application/json", list)).toEqual(Either.right({ _tag: "table", apiVersion: "meta.platform/v1beta1" }))
    // kubectl's Accept
    expect(negotiate("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json", list)).toEqual(
      Either.right({ _tag: "table", apiVersion: "meta.k8s.io/v1" })
    )
    // A protobuf Table is not served: the next entry is used.
    expect(negotiate("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json", list)).toEqual(Either.right("json"))
    expect(negotiate("application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io, application/json", list)).toEqual(Either.right("json"))
  })

  it("skips YAML before a JSON fallback", () => {
    expect(negotiate("application/yaml, */*", item)).toEqual(Either.right("json"))
    expect(negotiate("application/yaml, application/json", item)).toEqual(Either.right("json"))
  })

  it("serves protobuf under this API's name and upstream's", () => {
    expect(negotiate("application/vnd.platform.protobuf", item)).toEqual(Either.right("protobuf"))
    expect(negotiate("application/vnd.platform.protobuf, application/json", item)).toEqual(Either.right("protobuf"))
    // kubectl ≥ 1.32 on typed creates
    expect(negotiate("application/vnd.kubernetes.protobuf,application/json", item)).toEqual(Either.right("protobuf"))
    expect(negotiate("application/vnd.kubernetes.protobuf", list)).toEqual(Either.right("protobuf"))
    expect(negotiate("application/json, application/vnd.kubernetes.protobuf", item)).toEqual(Either.right("json"))
  })

  it("falls back past protobuf when asked to (an object without a protobuf form)", () => {
    expect(negotiate("application/vnd.kubernetes.protobuf, application/json", { ...item, protobuf: false })).toEqual(Either.right("json"))
    expect(statusOf(negotiate("application/vnd.kubernetes.protobuf", { ...item, protobuf: false }))).toEqual(handlerNotAcceptable(objectTypes))
  })

  it("answers protobuf with the name the client asked for", () => {
    expect(protobufResponseMediaType("application/vnd.kubernetes.protobuf, application/json")).toBe("application/vnd.kubernetes.protobuf")
    expect(protobufResponseMediaType("application/vnd.kubernetes.protobuf;stream=watch")).toBe("application/vnd.kubernetes.protobuf")
    expect(protobufResponseMediaType("application/vnd.platform.protobuf")).toBe("application/vnd.platform.protobuf")
    expect(protobufResponseMediaType(undefined)).toBe("application/vnd.platform.protobuf")
  })

  it("answers the handler 406 (no details) when only unrenderable types are asked for", () => {
    for (const accept of [
      "application/yaml",
      "application/vnd.platform.protobuf;as=Table;v=v1;g=meta.platform",
      "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.platform",
      "application/json;as=PartialObjectMetadata;v=v1;g=meta.platform"
    ]) {
      expect(statusOf(negotiate(accept, item))).toEqual(handlerNotAcceptable(objectTypes))
    }
  })

  it("rejects unknown transforms and server versions like upstream", () => {
    expect(statusOf(negotiate("application/json;as=Foo;v=v1;g=meta.platform", item))).toEqual(handlerNotAcceptable(objectTypes))
    expect(statusOf(negotiate("application/json;as=Table;v=v1;g=apps", item))).toEqual(handlerNotAcceptable(objectTypes))
    expect(statusOf(negotiate("application/json;sv=v2", item))).toEqual(handlerNotAcceptable(objectTypes))
    expect(negotiate("application/json;sv=v1", item)).toEqual(Either.right("json"))
  })

  it("accepts a stream=watch parameter only on streaming serializers", () => {
    expect(negotiate("application/json;stream=watch", item)).toEqual(Either.right("json"))
    expect(statusOf(negotiate("application/json;stream=other", item))).toEqual(handlerNotAcceptable(objectTypes))
    expect(statusOf(negotiate("application/yaml;stream=watch", item))).toEqual(handlerNotAcceptable(objectTypes))
  })

  it("answers the route 406 with details {} when no entry names a route type", () => {
    expect(statusOf(negotiate("application/*", item))).toEqual(routeNotAcceptable(objectTypes))
    expect(statusOf(negotiate("text/html", item))).toEqual(routeNotAcceptable(objectTypes))
    expect(statusOf(negotiate("Application/JSON", item))).toEqual(routeNotAcceptable(objectTypes))
  })

  it("lists the stream types on collection routes", () => {
    expect(statusOf(negotiate("text/plain", list))).toEqual(routeNotAcceptable(`${objectTypes}, ${streamTypes}`))
    expect(statusOf(negotiate("text/plain", watch))).toEqual(routeNotAcceptable(`${objectTypes}, ${streamTypes}`))
  })

  it("orders entries by q", () => {
    expect(negotiate("application/json;q=0.5, application/vnd.platform.protobuf", item)).toEqual(Either.right("protobuf"))
    expect(negotiate("application/json, application/vnd.platform.protobuf;q=0.9", item)).toEqual(Either.right("json"))
    expect(negotiate("application/yaml;q=0.5, application/json", watch)).toEqual(Either.right("json"))
  })

  it("serves JSON and protobuf watches", () => {
    expect(negotiate(undefined, watch)).toEqual(Either.right("json"))
    expect(negotiate("application/json", watch)).toEqual(Either.right("json"))
    expect(negotiate("application/vnd.platform.protobuf, application/json", watch)).toEqual(Either.right("protobuf"))
    expect(negotiate("application/vnd.kubernetes.protobuf;stream=watch", watch)).toEqual(Either.right("protobuf"))
    expect(negotiate("application/json;as=Table;v=v1;g=meta.platform, application/json", watch)).toEqual(Either.right({ _tag: "table", apiVersion: "meta.platform/v1" }))
  })

  it("refuses a YAML watch with the stream list", () => {
    expect(statusOf(negotiate("application/yaml", watch))).toEqual(handlerNotAcceptable(streamTypes))
    // upstream picks the first acceptable entry for the framing, and YAML has none
    expect(statusOf(negotiate("application/yaml, application/json", watch))).toEqual(handlerNotAcceptable(streamTypes))
  })

  it("refuses a watch no entry of which is acceptable with the object list", () => {
    expect(statusOf(negotiate("application/json;sv=v9", watch))).toEqual(handlerNotAcceptable(objectTypes))
  })
})

describe("requestBodyFormat", () => {
  const unsupported = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `the body of the request was in an unknown format - accepted media types include: ${objectTypes}`,
    reason: "UnsupportedMediaType",
    code: 415
  }

  it("reads JSON for an empty or JSON Content-Type", () => {
    for (const ct of [undefined, "", "application/json", "application/json; charset=utf-8", "Application/JSON", "application/json;", 'application/json; a="x;y"']) {
      expect(requestBodyFormat(ct)).toEqual(Either.right("json"))
    }
  })

  it("answers 415 for unknown or malformed types", () => {
    for (const ct of ["text/plain", "application/json-patch+json", "application/json; charset", "application/json; a=1; a=2", "application", "application/json/x", 'application/json; a="x']) {
      expect(statusOf(requestBodyFormat(ct))).toEqual(unsupported)
    }
  })

  it("reads protobuf under either name", () => {
    expect(requestBodyFormat("application/vnd.platform.protobuf")).toEqual(Either.right("protobuf"))
    expect(requestBodyFormat("application/vnd.kubernetes.protobuf")).toEqual(Either.right("protobuf"))
    expect(requestBodyFormat("Application/Vnd.Kubernetes.Protobuf; charset=x")).toEqual(Either.right("protobuf"))
  })

  it("reads YAML (decoded to the same value as JSON)", () => {
    expect(requestBodyFormat("application/yaml")).toEqual(Either.right("yaml"))
    expect(requestBodyFormat("Application/YAML; charset=utf-8")).toEqual(Either.right("yaml"))
  })
})
