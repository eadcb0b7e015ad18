/**
 * The k8s.io.api.authentication.v1 TokenRequest, in upstream's wire format (k8s.io/api authentication/v1:
 * generated.proto for field numbers and types, types.go for the JSON flags); see `src/api/protobuf/Schema.ts` for
 * the option `(keep_zero)`.
 */
export const proto = `
syntax = "proto2";
package k8s.io.api.authentication.v1;

message BoundObjectReference {
  optional string kind = 1;
  optional string apiVersion = 2;
  optional string name = 3;
  optional string uID = 4 [json_name = "uid"];
}

message TokenRequest {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional TokenRequestSpec spec = 2;
  optional TokenRequestStatus status = 3;
}

message TokenRequestSpec {
  repeated string audiences = 1;
  optional int64 expirationSeconds = 4 [(keep_zero) = true];
  optional BoundObjectReference boundObjectRef = 3;
}

message TokenRequestStatus {
  optional string token = 1 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time expirationTimestamp = 2;
}
`
