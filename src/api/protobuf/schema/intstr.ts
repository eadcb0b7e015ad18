/**
 * The k8s.io.apimachinery.pkg.util.intstr messages clustersim serves, in upstream's wire format (k8s.io/apimachinery pkg/util/intstr: generated.proto for
 * field numbers and types, types.go for the JSON flags). Written by `scripts/protobuf-schema.cjs`; see
 * `src/api/protobuf/Schema.ts` for the options `(keep_zero)` and `(inline)`.
 */
export const proto = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.util.intstr;

message IntOrString {
  optional int64 type = 1;
  optional int32 intVal = 2;
  optional string strVal = 3;
}
`
