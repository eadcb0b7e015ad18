/**
 * The k8s.io.api.apps.v1 messages clustersim serves, in upstream's wire format (k8s.io/api apps/v1: generated.proto for
 * field numbers and types, types.go for the JSON flags). Written by `scripts/protobuf-schema.cjs`; see
 * `src/api/protobuf/Schema.ts` for the options `(keep_zero)` and `(inline)`.
 */
export const proto = `
syntax = "proto2";
package k8s.io.api.apps.v1;

message Deployment {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional DeploymentSpec spec = 2;
  optional DeploymentStatus status = 3;
}

message DeploymentCondition {
  optional string type = 1 [(keep_zero) = true];
  optional string status = 2 [(keep_zero) = true];
  optional string reason = 4;
  optional string message = 5;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastUpdateTime = 6;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 7;
}

message DeploymentList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Deployment items = 2;
}

message DeploymentSpec {
  optional int32 replicas = 1 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 2;
  optional .k8s.io.api.core.v1.PodTemplateSpec template = 3;
  optional DeploymentStrategy strategy = 4;
  optional int32 minReadySeconds = 5;
  optional int32 revisionHistoryLimit = 6 [(keep_zero) = true];
  optional bool paused = 7;
  optional int32 progressDeadlineSeconds = 9 [(keep_zero) = true];
}

message DeploymentStatus {
  optional int64 observedGeneration = 1;
  optional int32 replicas = 2;
  optional int32 updatedReplicas = 3;
  optional int32 availableReplicas = 4;
  optional int32 unavailableReplicas = 5;
  repeated DeploymentCondition conditions = 6;
  optional int32 readyReplicas = 7;
  optional int32 collisionCount = 8 [(keep_zero) = true];
  optional int32 terminatingReplicas = 9 [(keep_zero) = true];
}

message DeploymentStrategy {
  optional string type = 1;
  optional RollingUpdateDeployment rollingUpdate = 2;
}

message ReplicaSet {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ReplicaSetSpec spec = 2;
  optional ReplicaSetStatus status = 3;
}

message ReplicaSetCondition {
  optional string type = 1 [(keep_zero) = true];
  optional string status = 2 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 3;
  optional string reason = 4;
  optional string message = 5;
}

message ReplicaSetList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ReplicaSet items = 2;
}

message ReplicaSetSpec {
  optional int32 replicas = 1 [(keep_zero) = true];
  optional int32 minReadySeconds = 4;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 2;
  optional .k8s.io.api.core.v1.PodTemplateSpec template = 3;
}

message ReplicaSetStatus {
  optional int32 replicas = 1 [(keep_zero) = true];
  optional int32 fullyLabeledReplicas = 2;
  optional int32 readyReplicas = 4;
  optional int32 availableReplicas = 5;
  optional int32 terminatingReplicas = 7 [(keep_zero) = true];
  optional int64 observedGeneration = 3;
  repeated ReplicaSetCondition conditions = 6;
}

message RollingUpdateDeployment {
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString maxUnavailable = 1;
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString maxSurge = 2;
}
`
