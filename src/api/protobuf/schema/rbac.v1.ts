/**
 * The k8s.io.api.rbac.v1 messages clustersim serves, in upstream's wire format (k8s.io/api rbac/v1: generated.proto for
 * field numbers and types, types.go for the JSON flags); see `src/api/protobuf/Schema.ts` for the options
 * `(keep_zero)` and `(inline)`. A ClusterRole's `aggregationRule` is stored as sent; no controller aggregates
 * (docs/auth.md).
 */
export const proto = `
syntax = "proto2";
package k8s.io.api.rbac.v1;

message AggregationRule {
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector clusterRoleSelectors = 1;
}

message ClusterRole {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
  optional AggregationRule aggregationRule = 3;
}

message ClusterRoleBinding {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}

message ClusterRoleBindingList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ClusterRoleBinding items = 2;
}

message ClusterRoleList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ClusterRole items = 2;
}

message PolicyRule {
  repeated string verbs = 1;
  repeated string apiGroups = 2;
  repeated string resources = 3;
  repeated string resourceNames = 4;
  repeated string nonResourceURLs = 5;
}

message Role {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
}

message RoleBinding {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}

message RoleBindingList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated RoleBinding items = 2;
}

message RoleList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Role items = 2;
}

message RoleRef {
  optional string apiGroup = 1 [(keep_zero) = true];
  optional string kind = 2 [(keep_zero) = true];
  optional string name = 3 [(keep_zero) = true];
}

message Subject {
  optional string kind = 1 [(keep_zero) = true];
  optional string apiGroup = 2;
  optional string name = 3 [(keep_zero) = true];
  optional string namespace = 4;
}
`
