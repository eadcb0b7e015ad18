/**
 * The k8s.io.api.autoscaling.v1 messages clustersim serves, in upstream's wire format (k8s.io/api autoscaling/v1:
 * generated.proto for field numbers and types, types.go for the JSON flags): the `Scale` of the scale subresource.
 * Written by hand in the generator's form (`scripts/protobuf-schema.cjs`); see `src/api/protobuf/Schema.ts` for the
 * option `(keep_zero)`. `ScaleSpec.replicas` is `omitempty` in types.go, `ScaleStatus.replicas` is not.
 */
export const proto = `
syntax = "proto2";
package k8s.io.api.autoscaling.v1;

message Scale {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ScaleSpec spec = 2;
  optional ScaleStatus status = 3;
}

message ScaleSpec {
  optional int32 replicas = 1;
}

message ScaleStatus {
  optional int32 replicas = 1 [(keep_zero) = true];
  optional string selector = 2;
}
`
