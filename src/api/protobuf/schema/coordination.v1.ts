/**
 * The k8s.io.api.coordination.v1 messages clustersim serves, in upstream's wire format (k8s.io/api coordination/v1: generated.proto for
 * field numbers and types, types.go for the JSON flags). Written by `scripts/protobuf-schema.cjs`; see
 * `src/api/protobuf/Schema.ts` for the options `(keep_zero)` and `(inline)`.
 */
export const proto = `
syntax = "proto2";
package k8s.io.api.coordination.v1;

message Lease {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional LeaseSpec spec = 2;
}

message LeaseList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Lease items = 2;
}

message LeaseSpec {
  optional string holderIdentity = 1 [(keep_zero) = true];
  optional int32 leaseDurationSeconds = 2 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime acquireTime = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime renewTime = 4;
  optional int32 leaseTransitions = 5 [(keep_zero) = true];
  optional string strategy = 6 [(keep_zero) = true];
  optional string preferredHolder = 7 [(keep_zero) = true];
}
`
