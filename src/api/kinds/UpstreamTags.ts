/**
 * The patch and apply tags of the upstream 1.26 types (`k8s.io/api` core/v1 and apps/v1 types.go,
 * `k8s.io/apimachinery` meta/v1 types.go): struct tags `patchStrategy`/`patchMergeKey` and the markers
 * `+listType`, `+listMapKey`, `+mapType`, `+structType`, and the `+default` of list keys. The one list of how fields merge: the built-in
 * schemas (`BuiltinSchemas.ts`, `FieldSchema.ts`) carry these tags, and strategic merge patch, server-side
 * apply and the OpenAPI documents read them from there.
 *
 * Keyed by `<package>.<Type>` then JSON field name; `""` holds the type's own markers. A list without tags is
 * atomic (a patch replaces it whole), as upstream: tolerations, taints, node images.
 */

/**
 * How upstream merges a field: the struct tags and markers of `k8s.io/api` types.go (1.26), which strategic
 * merge patch, server-side apply and the OpenAPI documents (`x-kubernetes-patch-strategy`,
 * `x-kubernetes-patch-merge-key`, `x-kubernetes-list-type`, `x-kubernetes-list-map-keys`,
 * `x-kubernetes-map-type`) all read. Kept as upstream writes them: only what a type says explicitly is set;
 * `FieldSchema.ts` `listSemantics` derives what server-side apply makes of a list.
 */
export interface PatchTags {
  /** `patchStrategy:"merge"`, `"merge,retainKeys"` (lists) or `"retainKeys"` (a struct of one-of fields). */
  readonly patchStrategy?: "merge" | "retainKeys" | "merge,retainKeys"
  /** `patchMergeKey:"name"`: the field that identifies an element of a merged list of objects. */
  readonly patchMergeKey?: string
  /** `+listType`: explicit server-side apply list semantics. */
  readonly listType?: "atomic" | "set" | "map"
  /** `+listMapKey` (in order), for `listType=map`. */
  readonly listMapKeys?: ReadonlyArray<string>
  /**
   * The `+default` markers of key fields (a port's `protocol` is `"TCP"`): the key an element that omits the
   * field has, for server-side apply (`structured-merge-diff` `getAssociativeKeyDefault`).
   */
  readonly listMapKeyDefaults?: Readonly<Record<string, string>>
  /** `+mapType=atomic`: a map replaced as a whole (`nodeSelector`, `selector`). */
  readonly mapType?: "atomic" | "granular"
  /** `+structType=atomic`: a struct replaced as a whole (`LabelSelector`, `OwnerReference`). */
  readonly structType?: "atomic" | "granular"
}

const upstreamTags: Readonly<Record<string, Readonly<Record<string, PatchTags>>>> = {
  "core/v1.PersistentVolumeClaimStatus": { conditions: { patchStrategy: "merge", patchMergeKey: "type" } },
  "core/v1.SecretReference": { "": { structType: "atomic" } },
  "core/v1.ObjectFieldSelector": { "": { structType: "atomic" } },
  "core/v1.ResourceFieldSelector": { "": { structType: "atomic" } },
  "core/v1.ConfigMapKeySelector": { "": { structType: "atomic" } },
  "core/v1.SecretKeySelector": { "": { structType: "atomic" } },
  "core/v1.ResourceRequirements": { claims: { listType: "map", listMapKeys: ["name"] } },
  "core/v1.Container": { ports: { patchStrategy: "merge", patchMergeKey: "containerPort", listType: "map", listMapKeys: ["containerPort", "protocol"], listMapKeyDefaults: { protocol: "TCP" } }, env: { patchStrategy: "merge", patchMergeKey: "name" }, volumeMounts: { patchStrategy: "merge", patchMergeKey: "mountPath" }, volumeDevices: { patchStrategy: "merge", patchMergeKey: "devicePath" } },
  "core/v1.NodeSelector": { "": { structType: "atomic" } },
  "core/v1.NodeSelectorTerm": { "": { structType: "atomic" } },
  "core/v1.TopologySelectorTerm": { "": { structType: "atomic" } },
  "core/v1.PodSpec": { volumes: { patchStrategy: "merge,retainKeys", patchMergeKey: "name" }, initContainers: { patchStrategy: "merge", patchMergeKey: "name" }, containers: { patchStrategy: "merge", patchMergeKey: "name" }, ephemeralContainers: { patchStrategy: "merge", patchMergeKey: "name" }, nodeSelector: { mapType: "atomic" }, imagePullSecrets: { patchStrategy: "merge", patchMergeKey: "name" }, hostAliases: { patchStrategy: "merge", patchMergeKey: "ip" }, topologySpreadConstraints: { patchStrategy: "merge", patchMergeKey: "topologyKey", listType: "map", listMapKeys: ["topologyKey", "whenUnsatisfiable"] }, schedulingGates: { patchStrategy: "merge", patchMergeKey: "name", listType: "map", listMapKeys: ["name"] }, resourceClaims: { patchStrategy: "merge,retainKeys", patchMergeKey: "name", listType: "map", listMapKeys: ["name"] } },
  "core/v1.TopologySpreadConstraint": { matchLabelKeys: { listType: "atomic" } },
  "core/v1.EphemeralContainerCommon": { ports: { patchStrategy: "merge", patchMergeKey: "containerPort", listType: "map", listMapKeys: ["containerPort", "protocol"], listMapKeyDefaults: { protocol: "TCP" } }, env: { patchStrategy: "merge", patchMergeKey: "name" }, volumeMounts: { patchStrategy: "merge", patchMergeKey: "mountPath" }, volumeDevices: { patchStrategy: "merge", patchMergeKey: "devicePath" } },
  "core/v1.PodStatus": { conditions: { patchStrategy: "merge", patchMergeKey: "type" }, podIPs: { patchStrategy: "merge", patchMergeKey: "ip" } },
  "core/v1.ReplicationControllerSpec": { selector: { mapType: "atomic" } },
  "core/v1.ReplicationControllerStatus": { conditions: { patchStrategy: "merge", patchMergeKey: "type" } },
  "core/v1.ServiceStatus": { conditions: { patchStrategy: "merge", patchMergeKey: "type", listType: "map", listMapKeys: ["type"] } },
  "core/v1.LoadBalancerIngress": { ports: { listType: "atomic" } },
  "core/v1.ServiceSpec": { ports: { patchStrategy: "merge", patchMergeKey: "port", listType: "map", listMapKeys: ["port", "protocol"], listMapKeyDefaults: { protocol: "TCP" } }, selector: { mapType: "atomic" }, clusterIPs: { listType: "atomic" }, ipFamilies: { listType: "atomic" } },
  "core/v1.ServiceAccount": { secrets: { patchStrategy: "merge", patchMergeKey: "name" } },
  "core/v1.EndpointAddress": { "": { structType: "atomic" } },
  "core/v1.EndpointPort": { "": { structType: "atomic" } },
  "core/v1.NodeSpec": { podCIDRs: { patchStrategy: "merge" } },
  "core/v1.NodeStatus": { conditions: { patchStrategy: "merge", patchMergeKey: "type" }, addresses: { patchStrategy: "merge", patchMergeKey: "type" } },
  "core/v1.NamespaceStatus": { conditions: { patchStrategy: "merge", patchMergeKey: "type" } },
  "core/v1.ObjectReference": { "": { structType: "atomic" } },
  "core/v1.LocalObjectReference": { "": { structType: "atomic" } },
  "core/v1.TypedLocalObjectReference": { "": { structType: "atomic" } },
  "core/v1.ScopeSelector": { "": { structType: "atomic" } },
  "core/v1.ComponentStatus": { conditions: { patchStrategy: "merge", patchMergeKey: "type" } },
  "apps/v1.StatefulSetStatus": { conditions: { patchStrategy: "merge", patchMergeKey: "type" } },
  "apps/v1.DeploymentSpec": { strategy: { patchStrategy: "retainKeys" } },
  "apps/v1.DeploymentStatus": { conditions: { patchStrategy: "merge", patchMergeKey: "type" } },
  "apps/v1.DaemonSetStatus": { conditions: { patchStrategy: "merge", patchMergeKey: "type" } },
  "apps/v1.ReplicaSetStatus": { conditions: { patchStrategy: "merge", patchMergeKey: "type" } },
  "meta/v1.ObjectMeta": { ownerReferences: { patchStrategy: "merge", patchMergeKey: "uid" }, finalizers: { patchStrategy: "merge" } },
  "meta/v1.OwnerReference": { "": { structType: "atomic" } },
  "meta/v1.LabelSelector": { "": { structType: "atomic" } },
}

/** The tags of field `field` of Go type `type` (`core/v1.PodSpec`), or of the type itself for `""`. */
export const tagsOf = (type: string, field: string): PatchTags | undefined => upstreamTags[type]?.[field]
