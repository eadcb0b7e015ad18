/**
 * The k8s.io.api.authentication TokenRequest (v1) and SelfSubjectReview (v1, v1beta1, v1alpha1), in upstream's wire format (k8s.io/api authentication/v1:
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

// UserInfo's \`extra\` (4, a map of ExtraValue) is not listed: a review with extra has no lossless form here
// and is answered in JSON, which protobuf clients also accept.
message UserInfo {
  optional string username = 1;
  optional string uid = 2;
  repeated string groups = 3;
}

message SelfSubjectReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectReviewStatus status = 2;
}

message SelfSubjectReviewStatus {
  optional UserInfo userInfo = 1;
}

message TokenRequestStatus {
  optional string token = 1 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time expirationTimestamp = 2;
}
`

/** The pre-release SelfSubjectReview packages (kubectl 1.27 asks v1beta1, then v1alpha1); they reuse v1's UserInfo. */
const selfSubjectReview = (version: string) => `
syntax = "proto2";
package k8s.io.api.authentication.${version};

message SelfSubjectReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectReviewStatus status = 2;
}

message SelfSubjectReviewStatus {
  optional .k8s.io.api.authentication.v1.UserInfo userInfo = 1;
}
`
export const protoV1beta1 = selfSubjectReview("v1beta1")
export const protoV1alpha1 = selfSubjectReview("v1alpha1")
