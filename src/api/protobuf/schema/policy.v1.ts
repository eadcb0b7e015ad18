/**
 * The k8s.io.api.policy.v1 messages clustersim serves, in upstream's wire format (k8s.io/api policy/v1: generated.proto for
 * field numbers and types, types.go for the JSON flags). Written by `scripts/protobuf-schema.cjs`; see
 * `src/api/protobuf/Schema.ts` for the options `(keep_zero)` and `(inline)`.
 */
export const proto = `
syntax = "proto2";
package k8s.io.api.policy.v1;

message Eviction {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions deleteOptions = 2;
}
`
