/**
 * The v2 document in the protobuf form kubectl asks for first (`Accept:
 * application/com.github.proto-openapi.spec.v2@v1.0+protobuf`; client-go `discovery.OpenAPISchema` decodes it
 * into gnostic's `openapi_v2.Document`; kubectl 1.27 and 1.28 need it for every `create`/`apply`). The JSON
 * document is converted field by field: schema keywords to their messages, `x-…` extensions to `NamedAny`
 * entries whose `yaml` holds the value (JSON text is YAML, and upstream's reader parses it as YAML).
 */
import protobuf from "protobufjs"
import { proto } from "../protobuf/schema/openapi.v2.js"
import type { SchemaObject } from "./SchemaObjects.js"

/** The type kubectl asks for. */
export const protobufV2MediaType = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
/**
 * The type upstream answers with (`kube-openapi` `handler.go` `subTypeProtobuf`): `@` is no token character,
 * and Go's `mime.ParseMediaType`, which client-go runs on the answer, rejects the requested spelling.
 */
export const protobufV2ContentType = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"

const root = protobuf.parse(proto, { keepCase: true }).root
const DocumentMessage = root.lookupType("openapi.v2.Document")

type Json = { readonly [key: string]: unknown }

const record = (v: unknown): Json => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {})

const extensions = (o: Json) =>
  Object.entries(o)
    .filter(([key]) => key.startsWith("x-"))
    .map(([name, value]) => ({ name, value: { yaml: JSON.stringify(value) } }))

const named = <T>(o: unknown, convert: (v: unknown) => T) => Object.entries(record(o)).map(([name, value]) => ({ name, value: convert(value) }))

const schema = (v: unknown): Json => {
  const s = record(v)
  const additional = s.additionalProperties
  return {
    _ref: s.$ref,
    format: s.format,
    description: s.description,
    required: s.required,
    additional_properties: additional === undefined ? undefined : typeof additional === "boolean" ? { boolean: additional } : { schema: schema(additional) },
    type: typeof s.type === "string" ? { value: [s.type] } : undefined,
    items: s.items === undefined ? undefined : { schema: [schema(s.items)] },
    all_of: Array.isArray(s.allOf) ? s.allOf.map(schema) : undefined,
    properties: s.properties === undefined ? undefined : { additional_properties: named(s.properties, schema) },
    vendor_extension: extensions(s)
  }
}

const parameter = (v: unknown): Json => {
  const p = record(v)
  if (p.in === "body") return { parameter: { body_parameter: { description: p.description, name: p.name, in: p.in, required: p.required, schema: schema(p.schema) } } }
  const sub = { required: p.required, in: p.in, description: p.description, name: p.name, type: p.type, unique_items: p.uniqueItems }
  return { parameter: { non_body_parameter: p.in === "path" ? { path_parameter_sub_schema: sub } : { query_parameter_sub_schema: sub } } }
}

const operation = (v: unknown): Json | undefined => {
  if (v === undefined) return undefined
  const op = record(v)
  return {
    tags: op.tags,
    description: op.description,
    operation_id: op.operationId,
    produces: op.produces,
    consumes: op.consumes,
    parameters: Array.isArray(op.parameters) ? op.parameters.map(parameter) : [],
    responses: {
      response_code: named(op.responses, (r) => {
        const response = record(r)
        return { response: { description: response.description, schema: response.schema === undefined ? undefined : { schema: schema(response.schema) } } }
      })
    },
    schemes: op.schemes,
    vendor_extension: extensions(op)
  }
}

const pathItem = (v: unknown): Json => {
  const item = record(v)
  return {
    get: operation(item.get),
    put: operation(item.put),
    post: operation(item.post),
    delete: operation(item.delete),
    patch: operation(item.patch),
    parameters: Array.isArray(item.parameters) ? item.parameters.map(parameter) : []
  }
}

/** The protobuf bytes of a v2 document (as built by `openApiV2Document`). */
export const encodeOpenApiV2 = (doc: SchemaObject): Uint8Array => {
  const message = DocumentMessage.fromObject({
    swagger: doc.swagger,
    info: doc.info,
    paths: { path: named(doc.paths, pathItem) },
    definitions: { additional_properties: named(doc.definitions, schema) },
    security: (Array.isArray(doc.security) ? doc.security : []).map((req) => ({ additional_properties: named(req, (scopes) => ({ value: scopes })) })),
    security_definitions: { additional_properties: named(doc.securityDefinitions, (d) => ({ api_key_security: d })) }
  })
  return DocumentMessage.encode(message).finish()
}

/** The decoded message as a plain object (snake_case fields), for tests and tools. */
export const decodeOpenApiV2 = (bytes: Uint8Array): Json => DocumentMessage.toObject(DocumentMessage.decode(bytes), { defaults: false, arrays: true }) as Json
