/**
 * The k8s.io.apimachinery.pkg.apis.meta.v1 messages clustersim serves, in upstream's wire format (k8s.io/apimachinery pkg/apis/meta/v1: generated.proto for
 * field numbers and types, types.go for the JSON flags). Written by `scripts/protobuf-schema.cjs`; see
 * `src/api/protobuf/Schema.ts` for the options `(keep_zero)` and `(inline)`.
 */
export const proto = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.apis.meta.v1;

message Condition {
  optional string type = 1 [(keep_zero) = true];
  optional string status = 2 [(keep_zero) = true];
  optional int64 observedGeneration = 3;
  optional Time lastTransitionTime = 4;
  optional string reason = 5 [(keep_zero) = true];
  optional string message = 6 [(keep_zero) = true];
}

message DeleteOptions {
  optional int64 gracePeriodSeconds = 1 [(keep_zero) = true];
  optional Preconditions preconditions = 2;
  optional bool orphanDependents = 3 [(keep_zero) = true];
  optional string propagationPolicy = 4 [(keep_zero) = true];
  repeated string dryRun = 5;
  optional bool ignoreStoreReadErrorWithClusterBreakingPotential = 6 [(keep_zero) = true];
}

message FieldsV1 {
  optional bytes Raw = 1;
}

message LabelSelector {
  map<string, string> matchLabels = 1;
  repeated LabelSelectorRequirement matchExpressions = 2;
}

message LabelSelectorRequirement {
  optional string key = 1 [(keep_zero) = true];
  optional string operator = 2 [(keep_zero) = true];
  repeated string values = 3;
}

message ListMeta {
  optional string selfLink = 1;
  optional string resourceVersion = 2;
  optional string continue = 3;
  optional int64 remainingItemCount = 4 [(keep_zero) = true];
  optional ShardInfo shardInfo = 5;
}

message ManagedFieldsEntry {
  optional string manager = 1;
  optional string operation = 2;
  optional string apiVersion = 3;
  optional Time time = 4;
  optional string fieldsType = 6;
  optional FieldsV1 fieldsV1 = 7;
  optional string subresource = 8;
}

message MicroTime {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}

message ObjectMeta {
  optional string name = 1;
  optional string generateName = 2;
  optional string namespace = 3;
  optional string selfLink = 4;
  optional string uid = 5;
  optional string resourceVersion = 6;
  optional int64 generation = 7;
  optional Time creationTimestamp = 8;
  optional Time deletionTimestamp = 9;
  optional int64 deletionGracePeriodSeconds = 10 [(keep_zero) = true];
  map<string, string> labels = 11;
  map<string, string> annotations = 12;
  repeated OwnerReference ownerReferences = 13;
  repeated string finalizers = 14;
  repeated ManagedFieldsEntry managedFields = 17;
}

message OwnerReference {
  optional string kind = 1 [(keep_zero) = true];
  optional string name = 3 [(keep_zero) = true];
  optional string uid = 4 [(keep_zero) = true];
  optional string apiVersion = 5 [(keep_zero) = true];
  optional bool controller = 6 [(keep_zero) = true];
  optional bool blockOwnerDeletion = 7 [(keep_zero) = true];
}

message Preconditions {
  optional string uid = 1 [(keep_zero) = true];
  optional string resourceVersion = 2 [(keep_zero) = true];
}

message ShardInfo {
  optional string selector = 1 [(keep_zero) = true];
}

message Status {
  optional ListMeta metadata = 1;
  optional string status = 2;
  optional string message = 3;
  optional string reason = 4;
  optional StatusDetails details = 5;
  optional int32 code = 6;
}

message StatusCause {
  optional string reason = 1;
  optional string message = 2;
  optional string field = 3;
}

message StatusDetails {
  optional string name = 1;
  optional string group = 2;
  optional string kind = 3;
  repeated StatusCause causes = 4;
  optional int32 retryAfterSeconds = 5;
  optional string uid = 6;
}

message Time {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}

message WatchEvent {
  optional string type = 1 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.runtime.RawExtension object = 2;
}
`
