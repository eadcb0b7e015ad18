/**
 * The k8s.io.apimachinery.pkg.runtime messages clustersim serves, in upstream's wire format (k8s.io/apimachinery pkg/runtime: generated.proto for
 * field numbers and types, types.go for the JSON flags). Written by `scripts/protobuf-schema.cjs`; see
 * `src/api/protobuf/Schema.ts` for the options `(keep_zero)` and `(inline)`.
 */
export const proto = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.runtime;

message RawExtension {
  optional bytes raw = 1 [json_name = "-", (keep_zero) = true];
}

message TypeMeta {
  optional string apiVersion = 1;
  optional string kind = 2;
}

message Unknown {
  optional TypeMeta typeMeta = 1 [(inline) = true];
  optional bytes raw = 2 [json_name = "-", (keep_zero) = true];
  optional string contentEncoding = 3;
  optional string contentType = 4;
}
`
