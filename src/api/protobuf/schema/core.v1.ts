/**
 * The k8s.io.api.core.v1 messages clustersim serves, in upstream's wire format (k8s.io/api core/v1: generated.proto for
 * field numbers and types, types.go for the JSON flags). Written by `scripts/protobuf-schema.cjs`; see
 * `src/api/protobuf/Schema.ts` for the options `(keep_zero)` and `(inline)`.
 */
export const proto = `
syntax = "proto2";
package k8s.io.api.core.v1;

message AWSElasticBlockStoreVolumeSource {
  optional string volumeID = 1 [(keep_zero) = true];
  optional string fsType = 2;
  optional int32 partition = 3;
  optional bool readOnly = 4;
}

message Affinity {
  optional NodeAffinity nodeAffinity = 1;
  optional PodAffinity podAffinity = 2;
  optional PodAntiAffinity podAntiAffinity = 3;
}

message AppArmorProfile {
  optional string type = 1 [(keep_zero) = true];
  optional string localhostProfile = 2 [(keep_zero) = true];
}

message AttachedVolume {
  optional string name = 1 [(keep_zero) = true];
  optional string devicePath = 2 [(keep_zero) = true];
}

message AzureDiskVolumeSource {
  optional string diskName = 1 [(keep_zero) = true];
  optional string diskURI = 2 [(keep_zero) = true];
  optional string cachingMode = 3 [(keep_zero) = true];
  optional string fsType = 4 [(keep_zero) = true];
  optional bool readOnly = 5 [(keep_zero) = true];
  optional string kind = 6 [(keep_zero) = true];
}

message AzureFileVolumeSource {
  optional string secretName = 1 [(keep_zero) = true];
  optional string shareName = 2 [(keep_zero) = true];
  optional bool readOnly = 3;
}

message Binding {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ObjectReference target = 2;
}

message CSIVolumeSource {
  optional string driver = 1 [(keep_zero) = true];
  optional bool readOnly = 2 [(keep_zero) = true];
  optional string fsType = 3 [(keep_zero) = true];
  map<string, string> volumeAttributes = 4;
  optional LocalObjectReference nodePublishSecretRef = 5;
}

message Capabilities {
  repeated string add = 1;
  repeated string drop = 2;
}

message CephFSVolumeSource {
  repeated string monitors = 1;
  optional string path = 2;
  optional string user = 3;
  optional string secretFile = 4;
  optional LocalObjectReference secretRef = 5;
  optional bool readOnly = 6;
}

message CinderVolumeSource {
  optional string volumeID = 1 [(keep_zero) = true];
  optional string fsType = 2;
  optional bool readOnly = 3;
  optional LocalObjectReference secretRef = 4;
}

message ClientIPConfig {
  optional int32 timeoutSeconds = 1 [(keep_zero) = true];
}

message ClusterTrustBundleProjection {
  optional string name = 1 [(keep_zero) = true];
  optional string signerName = 2 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector labelSelector = 3;
  optional string path = 4 [(keep_zero) = true];
  optional bool optional = 5 [(keep_zero) = true];
  optional int64 user = 6 [(keep_zero) = true];
}

message ConfigMap {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  map<string, string> data = 2;
  map<string, bytes> binaryData = 3;
  optional bool immutable = 4 [(keep_zero) = true];
}

message ConfigMapEnvSource {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional bool optional = 2 [(keep_zero) = true];
}

message ConfigMapKeySelector {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional string key = 2 [(keep_zero) = true];
  optional bool optional = 3 [(keep_zero) = true];
}

message ConfigMapList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ConfigMap items = 2;
}

message ConfigMapNodeConfigSource {
  optional string namespace = 1 [(keep_zero) = true];
  optional string name = 2 [(keep_zero) = true];
  optional string uid = 3;
  optional string resourceVersion = 4;
  optional string kubeletConfigKey = 5 [(keep_zero) = true];
}

message ConfigMapProjection {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  repeated KeyToPath items = 2;
  optional bool optional = 4 [(keep_zero) = true];
}

message ConfigMapVolumeSource {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  repeated KeyToPath items = 2;
  optional int32 defaultMode = 3 [(keep_zero) = true];
  optional bool optional = 4 [(keep_zero) = true];
  optional int64 defaultUser = 5 [(keep_zero) = true];
}

message Container {
  optional string name = 1 [(keep_zero) = true];
  optional string image = 2;
  repeated string command = 3;
  repeated string args = 4;
  optional string workingDir = 5;
  repeated ContainerPort ports = 6;
  repeated EnvVar env = 7;
  optional ResourceRequirements resources = 8;
  repeated VolumeMount volumeMounts = 9;
  optional Probe livenessProbe = 10;
  optional Probe readinessProbe = 11;
  optional Lifecycle lifecycle = 12;
  optional string terminationMessagePath = 13;
  optional string imagePullPolicy = 14;
  optional SecurityContext securityContext = 15;
  optional bool stdin = 16;
  optional bool stdinOnce = 17;
  optional bool tty = 18;
  repeated EnvFromSource envFrom = 19;
  optional string terminationMessagePolicy = 20;
  repeated VolumeDevice volumeDevices = 21;
  optional Probe startupProbe = 22;
  repeated ContainerResizePolicy resizePolicy = 23;
  optional string restartPolicy = 24 [(keep_zero) = true];
  repeated ContainerRestartRule restartPolicyRules = 25;
}

message ContainerExtendedResourceRequest {
  optional string containerName = 1 [(keep_zero) = true];
  optional string resourceName = 2 [(keep_zero) = true];
  optional string requestName = 3 [(keep_zero) = true];
}

message ContainerImage {
  repeated string names = 1;
  optional int64 sizeBytes = 2;
}

message ContainerPort {
  optional string name = 1;
  optional int32 hostPort = 2;
  optional int32 containerPort = 3 [(keep_zero) = true];
  optional string protocol = 4;
  optional string hostIP = 5;
}

message ContainerResizePolicy {
  optional string resourceName = 1 [(keep_zero) = true];
  optional string restartPolicy = 2 [(keep_zero) = true];
}

message ContainerRestartRule {
  optional string action = 1;
  optional ContainerRestartRuleOnExitCodes exitCodes = 2;
}

message ContainerRestartRuleOnExitCodes {
  optional string operator = 1;
  repeated int32 values = 2;
}

message ContainerState {
  optional ContainerStateWaiting waiting = 1;
  optional ContainerStateRunning running = 2;
  optional ContainerStateTerminated terminated = 3;
}

message ContainerStateRunning {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time startedAt = 1;
}

message ContainerStateTerminated {
  optional int32 exitCode = 1 [(keep_zero) = true];
  optional int32 signal = 2;
  optional string reason = 3;
  optional string message = 4;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time startedAt = 5;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time finishedAt = 6;
  optional string containerID = 7;
}

message ContainerStateWaiting {
  optional string reason = 1;
  optional string message = 2;
}

message ContainerStatus {
  optional string name = 1 [(keep_zero) = true];
  optional ContainerState state = 2;
  optional ContainerState lastState = 3;
  optional bool ready = 4 [(keep_zero) = true];
  optional int32 restartCount = 5 [(keep_zero) = true];
  optional string image = 6 [(keep_zero) = true];
  optional string imageID = 7 [(keep_zero) = true];
  optional string containerID = 8;
  optional bool started = 9 [(keep_zero) = true];
  map<string, .k8s.io.apimachinery.pkg.api.resource.Quantity> allocatedResources = 10;
  optional ResourceRequirements resources = 11;
  repeated VolumeMountStatus volumeMounts = 12;
  optional ContainerUser user = 13;
  repeated ResourceStatus allocatedResourcesStatus = 14;
  optional string stopSignal = 15 [(keep_zero) = true];
}

message ContainerUser {
  optional LinuxContainerUser linux = 1;
}

message DaemonEndpoint {
  optional int32 Port = 1 [(keep_zero) = true];
}

message DownwardAPIProjection {
  repeated DownwardAPIVolumeFile items = 1;
}

message DownwardAPIVolumeFile {
  optional string path = 1 [(keep_zero) = true];
  optional ObjectFieldSelector fieldRef = 2;
  optional ResourceFieldSelector resourceFieldRef = 3;
  optional int32 mode = 4 [(keep_zero) = true];
  optional int64 user = 5 [(keep_zero) = true];
}

message DownwardAPIVolumeSource {
  repeated DownwardAPIVolumeFile items = 1;
  optional int32 defaultMode = 2 [(keep_zero) = true];
  optional int64 defaultUser = 3 [(keep_zero) = true];
}

message EmptyDirVolumeSource {
  optional string medium = 1;
  optional .k8s.io.apimachinery.pkg.api.resource.Quantity sizeLimit = 2;
  optional int32 mode = 3 [(keep_zero) = true];
}

message EnvFromSource {
  optional string prefix = 1;
  optional ConfigMapEnvSource configMapRef = 2;
  optional SecretEnvSource secretRef = 3;
}

message EnvVar {
  optional string name = 1 [(keep_zero) = true];
  optional string value = 2;
  optional EnvVarSource valueFrom = 3;
}

message EnvVarSource {
  optional ObjectFieldSelector fieldRef = 1;
  optional ResourceFieldSelector resourceFieldRef = 2;
  optional ConfigMapKeySelector configMapKeyRef = 3;
  optional SecretKeySelector secretKeyRef = 4;
  optional FileKeySelector fileKeyRef = 5;
}

message EphemeralContainer {
  optional EphemeralContainerCommon ephemeralContainerCommon = 1 [(inline) = true];
  optional string targetContainerName = 2;
}

message EphemeralContainerCommon {
  optional string name = 1 [(keep_zero) = true];
  optional string image = 2;
  repeated string command = 3;
  repeated string args = 4;
  optional string workingDir = 5;
  repeated ContainerPort ports = 6;
  repeated EnvVar env = 7;
  optional ResourceRequirements resources = 8;
  repeated VolumeMount volumeMounts = 9;
  optional Probe livenessProbe = 10;
  optional Probe readinessProbe = 11;
  optional Lifecycle lifecycle = 12;
  optional string terminationMessagePath = 13;
  optional string imagePullPolicy = 14;
  optional SecurityContext securityContext = 15;
  optional bool stdin = 16;
  optional bool stdinOnce = 17;
  optional bool tty = 18;
  repeated EnvFromSource envFrom = 19;
  optional string terminationMessagePolicy = 20;
  repeated VolumeDevice volumeDevices = 21;
  optional Probe startupProbe = 22;
  repeated ContainerResizePolicy resizePolicy = 23;
  optional string restartPolicy = 24 [(keep_zero) = true];
  repeated ContainerRestartRule restartPolicyRules = 25;
}

message EphemeralVolumeSource {
  optional PersistentVolumeClaimTemplate volumeClaimTemplate = 1;
}

message Event {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ObjectReference involvedObject = 2;
  optional string reason = 3;
  optional string message = 4;
  optional EventSource source = 5;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time firstTimestamp = 6;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTimestamp = 7;
  optional int32 count = 8;
  optional string type = 9;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime eventTime = 10;
  optional EventSeries series = 11;
  optional string action = 12;
  optional ObjectReference related = 13;
  optional string reportingComponent = 14 [(keep_zero) = true];
  optional string reportingInstance = 15 [(keep_zero) = true];
}

message EventList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Event items = 2;
}

message EventSeries {
  optional int32 count = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime lastObservedTime = 2;
}

message EventSource {
  optional string component = 1;
  optional string host = 2;
}

message EvictionResponder {
  optional string name = 1 [(keep_zero) = true];
  optional int32 priority = 2 [(keep_zero) = true];
}

message ExecAction {
  repeated string command = 1;
}

message FCVolumeSource {
  repeated string targetWWNs = 1;
  optional int32 lun = 2 [(keep_zero) = true];
  optional string fsType = 3;
  optional bool readOnly = 4;
  repeated string wwids = 5;
}

message FileKeySelector {
  optional string volumeName = 1 [(keep_zero) = true];
  optional string path = 2 [(keep_zero) = true];
  optional string key = 3 [(keep_zero) = true];
  optional bool optional = 4 [(keep_zero) = true];
}

message FlexVolumeSource {
  optional string driver = 1 [(keep_zero) = true];
  optional string fsType = 2;
  optional LocalObjectReference secretRef = 3;
  optional bool readOnly = 4;
  map<string, string> options = 5;
}

message FlockerVolumeSource {
  optional string datasetName = 1;
  optional string datasetUUID = 2;
}

message GCEPersistentDiskVolumeSource {
  optional string pdName = 1 [(keep_zero) = true];
  optional string fsType = 2;
  optional int32 partition = 3;
  optional bool readOnly = 4;
}

message GRPCAction {
  optional int32 port = 1 [(keep_zero) = true];
  optional string service = 2 [(keep_zero) = true];
  optional string mode = 3 [(keep_zero) = true];
}

message GitRepoVolumeSource {
  optional string repository = 1 [(keep_zero) = true];
  optional string revision = 2;
  optional string directory = 3;
}

message GlusterfsVolumeSource {
  optional string endpoints = 1 [(keep_zero) = true];
  optional string path = 2 [(keep_zero) = true];
  optional bool readOnly = 3;
}

message HTTPGetAction {
  optional string path = 1;
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString port = 2;
  optional string host = 3;
  optional string scheme = 4;
  repeated HTTPHeader httpHeaders = 5;
  optional string protocol = 6 [(keep_zero) = true];
}

message HTTPHeader {
  optional string name = 1 [(keep_zero) = true];
  optional string value = 2 [(keep_zero) = true];
}

message HostAlias {
  optional string ip = 1 [(keep_zero) = true];
  repeated string hostnames = 2;
}

message HostIP {
  optional string ip = 1 [(keep_zero) = true];
}

message HostPathVolumeSource {
  optional string path = 1 [(keep_zero) = true];
  optional string type = 2 [(keep_zero) = true];
}

message ISCSIVolumeSource {
  optional string targetPortal = 1 [(keep_zero) = true];
  optional string iqn = 2 [(keep_zero) = true];
  optional int32 lun = 3 [(keep_zero) = true];
  optional string iscsiInterface = 4;
  optional string fsType = 5;
  optional bool readOnly = 6;
  repeated string portals = 7;
  optional bool chapAuthDiscovery = 8;
  optional LocalObjectReference secretRef = 10;
  optional bool chapAuthSession = 11;
  optional string initiatorName = 12 [(keep_zero) = true];
}

message ImageVolumeSource {
  optional string reference = 1;
  optional string pullPolicy = 2;
}

message ImageVolumeStatus {
  optional string imageRef = 1;
}

message KeyToPath {
  optional string key = 1 [(keep_zero) = true];
  optional string path = 2 [(keep_zero) = true];
  optional int32 mode = 3 [(keep_zero) = true];
  optional int64 user = 4 [(keep_zero) = true];
}

message Lifecycle {
  optional LifecycleHandler postStart = 1;
  optional LifecycleHandler preStop = 2;
  optional string stopSignal = 3 [(keep_zero) = true];
}

message LifecycleHandler {
  optional ExecAction exec = 1;
  optional HTTPGetAction httpGet = 2;
  optional TCPSocketAction tcpSocket = 3;
  optional SleepAction sleep = 4;
}

message LinuxContainerUser {
  optional int64 uid = 1 [(keep_zero) = true];
  optional int64 gid = 2 [(keep_zero) = true];
  repeated int64 supplementalGroups = 3;
}

message LoadBalancerIngress {
  optional string ip = 1;
  optional string hostname = 2;
  optional string ipMode = 3 [(keep_zero) = true];
  repeated PortStatus ports = 4;
}

message LoadBalancerStatus {
  repeated LoadBalancerIngress ingress = 1;
}

message LocalObjectReference {
  optional string name = 1;
}

message NFSVolumeSource {
  optional string server = 1 [(keep_zero) = true];
  optional string path = 2 [(keep_zero) = true];
  optional bool readOnly = 3;
}

message Namespace {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional NamespaceSpec spec = 2;
  optional NamespaceStatus status = 3;
}

message NamespaceCondition {
  optional string type = 1 [(keep_zero) = true];
  optional string status = 2 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message NamespaceList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Namespace items = 2;
}

message NamespaceSpec {
  repeated string finalizers = 1;
}

message NamespaceStatus {
  optional string phase = 1;
  repeated NamespaceCondition conditions = 2;
}

message Node {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional NodeSpec spec = 2;
  optional NodeStatus status = 3;
}

message NodeAddress {
  optional string type = 1 [(keep_zero) = true];
  optional string address = 2 [(keep_zero) = true];
}

message NodeAffinity {
  optional NodeSelector requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated PreferredSchedulingTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}

message NodeAllocatableMappedResources {
  optional string name = 1 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.api.resource.Quantity quantity = 2;
}

message NodeAllocatableOverheadResources {
  optional string name = 1 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.api.resource.Quantity perPod = 2;
  optional .k8s.io.apimachinery.pkg.api.resource.Quantity perContainer = 3;
}

message NodeAllocatableResourceClaimStatus {
  optional string resourceClaimName = 1 [(keep_zero) = true];
  repeated string containers = 2;
  repeated NodeAllocatableMappedResources mapping = 4;
  repeated NodeAllocatableOverheadResources overhead = 5;
}

message NodeCondition {
  optional string type = 1 [(keep_zero) = true];
  optional string status = 2 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastHeartbeatTime = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message NodeConfigSource {
  optional ConfigMapNodeConfigSource configMap = 2;
}

message NodeConfigStatus {
  optional NodeConfigSource assigned = 1;
  optional NodeConfigSource active = 2;
  optional NodeConfigSource lastKnownGood = 3;
  optional string error = 4;
}

message NodeDaemonEndpoints {
  optional DaemonEndpoint kubeletEndpoint = 1;
}

message NodeFeatures {
  optional bool supplementalGroupsPolicy = 1 [(keep_zero) = true];
}

message NodeList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Node items = 2;
}

message NodePodPreemptionPolicy {
  repeated string disableResizePreemption = 1;
}

message NodeRuntimeHandler {
  optional string name = 1 [(keep_zero) = true];
  optional NodeRuntimeHandlerFeatures features = 2;
}

message NodeRuntimeHandlerFeatures {
  optional bool recursiveReadOnlyMounts = 1 [(keep_zero) = true];
  optional bool userNamespaces = 2 [(keep_zero) = true];
}

message NodeSelector {
  repeated NodeSelectorTerm nodeSelectorTerms = 1;
}

message NodeSelectorRequirement {
  optional string key = 1 [(keep_zero) = true];
  optional string operator = 2 [(keep_zero) = true];
  repeated string values = 3;
}

message NodeSelectorTerm {
  repeated NodeSelectorRequirement matchExpressions = 1;
  repeated NodeSelectorRequirement matchFields = 2;
}

message NodeSpec {
  optional string podCIDR = 1;
  optional string externalID = 2;
  optional string providerID = 3;
  optional bool unschedulable = 4;
  repeated Taint taints = 5;
  optional NodeConfigSource configSource = 6;
  repeated string podCIDRs = 7;
  optional NodePodPreemptionPolicy podPreemptionPolicy = 8;
}

message NodeStatus {
  map<string, .k8s.io.apimachinery.pkg.api.resource.Quantity> capacity = 1;
  map<string, .k8s.io.apimachinery.pkg.api.resource.Quantity> allocatable = 2;
  optional string phase = 3;
  repeated NodeCondition conditions = 4;
  repeated NodeAddress addresses = 5;
  optional NodeDaemonEndpoints daemonEndpoints = 6;
  optional NodeSystemInfo nodeInfo = 7;
  repeated ContainerImage images = 8;
  repeated string volumesInUse = 9;
  repeated AttachedVolume volumesAttached = 10;
  optional NodeConfigStatus config = 11;
  repeated NodeRuntimeHandler runtimeHandlers = 12;
  optional NodeFeatures features = 13;
  repeated string declaredFeatures = 14;
}

message NodeSwapStatus {
  optional int64 capacity = 1 [(keep_zero) = true];
}

message NodeSystemInfo {
  optional string machineID = 1 [(keep_zero) = true];
  optional string systemUUID = 2 [(keep_zero) = true];
  optional string bootID = 3 [(keep_zero) = true];
  optional string kernelVersion = 4 [(keep_zero) = true];
  optional string osImage = 5 [(keep_zero) = true];
  optional string containerRuntimeVersion = 6 [(keep_zero) = true];
  optional string kubeletVersion = 7 [(keep_zero) = true];
  optional string kubeProxyVersion = 8 [(keep_zero) = true];
  optional string operatingSystem = 9 [(keep_zero) = true];
  optional string architecture = 10 [(keep_zero) = true];
  optional NodeSwapStatus swap = 11;
}

message ObjectFieldSelector {
  optional string apiVersion = 1;
  optional string fieldPath = 2 [(keep_zero) = true];
}

message ObjectReference {
  optional string kind = 1;
  optional string namespace = 2;
  optional string name = 3;
  optional string uid = 4;
  optional string apiVersion = 5;
  optional string resourceVersion = 6;
  optional string fieldPath = 7;
}

message PersistentVolumeClaimSpec {
  repeated string accessModes = 1;
  optional VolumeResourceRequirements resources = 2;
  optional string volumeName = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector selector = 4;
  optional string storageClassName = 5 [(keep_zero) = true];
  optional string volumeMode = 6 [(keep_zero) = true];
  optional TypedLocalObjectReference dataSource = 7;
  optional TypedObjectReference dataSourceRef = 8;
  optional string volumeAttributesClassName = 9 [(keep_zero) = true];
}

message PersistentVolumeClaimTemplate {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PersistentVolumeClaimSpec spec = 2;
}

message PersistentVolumeClaimVolumeSource {
  optional string claimName = 1 [(keep_zero) = true];
  optional bool readOnly = 2;
}

message PhotonPersistentDiskVolumeSource {
  optional string pdID = 1 [(keep_zero) = true];
  optional string fsType = 2;
}

message Pod {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PodSpec spec = 2;
  optional PodStatus status = 3;
}

message PodAffinity {
  repeated PodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated WeightedPodAffinityTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}

message PodAffinityTerm {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector labelSelector = 1;
  repeated string namespaces = 2;
  optional string topologyKey = 3 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector namespaceSelector = 4;
  repeated string matchLabelKeys = 5;
  repeated string mismatchLabelKeys = 6;
}

message PodAntiAffinity {
  repeated PodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated WeightedPodAffinityTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}

message PodCertificateProjection {
  optional string signerName = 1;
  optional string keyType = 2;
  optional int32 maxExpirationSeconds = 3 [(keep_zero) = true];
  optional string credentialBundlePath = 4;
  optional string keyPath = 5;
  optional string certificateChainPath = 6;
  map<string, string> userAnnotations = 7;
  optional int64 user = 8 [(keep_zero) = true];
}

message PodCondition {
  optional string type = 1 [(keep_zero) = true];
  optional string status = 2 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastProbeTime = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
  optional int64 observedGeneration = 7;
}

message PodDNSConfig {
  repeated string nameservers = 1;
  repeated string searches = 2;
  repeated PodDNSConfigOption options = 3;
}

message PodDNSConfigOption {
  optional string name = 1;
  optional string value = 2 [(keep_zero) = true];
}

message PodExtendedResourceClaimStatus {
  repeated ContainerExtendedResourceRequest requestMappings = 1;
  optional string resourceClaimName = 2 [(keep_zero) = true];
}

message PodIP {
  optional string ip = 1 [(keep_zero) = true];
}

message PodList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Pod items = 2;
}

message PodOS {
  optional string name = 1 [(keep_zero) = true];
}

message PodReadinessGate {
  optional string conditionType = 1 [(keep_zero) = true];
}

message PodResourceClaim {
  optional string name = 1 [(keep_zero) = true];
  optional string resourceClaimName = 3 [(keep_zero) = true];
  optional string resourceClaimTemplateName = 4 [(keep_zero) = true];
}

message PodResourceClaimStatus {
  optional string name = 1 [(keep_zero) = true];
  optional string resourceClaimName = 2 [(keep_zero) = true];
}

message PodSchedulingGate {
  optional string name = 1 [(keep_zero) = true];
}

message PodSchedulingGroup {
  optional string podGroupName = 1 [(keep_zero) = true];
}

message PodSecurityContext {
  optional SELinuxOptions seLinuxOptions = 1;
  optional int64 runAsUser = 2 [(keep_zero) = true];
  optional bool runAsNonRoot = 3 [(keep_zero) = true];
  repeated int64 supplementalGroups = 4;
  optional int64 fsGroup = 5 [(keep_zero) = true];
  optional int64 runAsGroup = 6 [(keep_zero) = true];
  repeated Sysctl sysctls = 7;
  optional WindowsSecurityContextOptions windowsOptions = 8;
  optional string fsGroupChangePolicy = 9 [(keep_zero) = true];
  optional SeccompProfile seccompProfile = 10;
  optional AppArmorProfile appArmorProfile = 11;
  optional string supplementalGroupsPolicy = 12 [(keep_zero) = true];
  optional string seLinuxChangePolicy = 13 [(keep_zero) = true];
}

message PodSpec {
  repeated Volume volumes = 1;
  repeated Container containers = 2;
  optional string restartPolicy = 3;
  optional int64 terminationGracePeriodSeconds = 4 [(keep_zero) = true];
  optional int64 activeDeadlineSeconds = 5 [(keep_zero) = true];
  optional string dnsPolicy = 6;
  map<string, string> nodeSelector = 7;
  optional string serviceAccountName = 8;
  optional string serviceAccount = 9;
  optional string nodeName = 10;
  optional bool hostNetwork = 11;
  optional bool hostPID = 12;
  optional bool hostIPC = 13;
  optional PodSecurityContext securityContext = 14;
  repeated LocalObjectReference imagePullSecrets = 15;
  optional string hostname = 16;
  optional string subdomain = 17;
  optional Affinity affinity = 18;
  optional string schedulerName = 19;
  repeated Container initContainers = 20;
  optional bool automountServiceAccountToken = 21 [(keep_zero) = true];
  repeated Toleration tolerations = 22;
  repeated HostAlias hostAliases = 23;
  optional string priorityClassName = 24;
  optional int32 priority = 25 [(keep_zero) = true];
  optional PodDNSConfig dnsConfig = 26;
  optional bool shareProcessNamespace = 27 [(keep_zero) = true];
  repeated PodReadinessGate readinessGates = 28;
  optional string runtimeClassName = 29 [(keep_zero) = true];
  optional bool enableServiceLinks = 30 [(keep_zero) = true];
  optional string preemptionPolicy = 31 [(keep_zero) = true];
  map<string, .k8s.io.apimachinery.pkg.api.resource.Quantity> overhead = 32;
  repeated TopologySpreadConstraint topologySpreadConstraints = 33;
  repeated EphemeralContainer ephemeralContainers = 34;
  optional bool setHostnameAsFQDN = 35 [(keep_zero) = true];
  optional PodOS os = 36;
  optional bool hostUsers = 37 [(keep_zero) = true];
  repeated PodSchedulingGate schedulingGates = 38;
  repeated PodResourceClaim resourceClaims = 39;
  optional ResourceRequirements resources = 40;
  optional string hostnameOverride = 41 [(keep_zero) = true];
  optional PodSchedulingGroup schedulingGroup = 43;
  repeated EvictionResponder evictionResponders = 44;
}

message PodStatus {
  optional string phase = 1;
  repeated PodCondition conditions = 2;
  optional string message = 3;
  optional string reason = 4;
  optional string hostIP = 5;
  optional string podIP = 6;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time startTime = 7;
  repeated ContainerStatus containerStatuses = 8;
  optional string qosClass = 9;
  repeated ContainerStatus initContainerStatuses = 10;
  optional string nominatedNodeName = 11;
  repeated PodIP podIPs = 12;
  repeated ContainerStatus ephemeralContainerStatuses = 13;
  optional string resize = 14;
  repeated PodResourceClaimStatus resourceClaimStatuses = 15;
  repeated HostIP hostIPs = 16;
  optional int64 observedGeneration = 17;
  optional PodExtendedResourceClaimStatus extendedResourceClaimStatus = 18;
  map<string, .k8s.io.apimachinery.pkg.api.resource.Quantity> allocatedResources = 19;
  optional ResourceRequirements resources = 20;
  repeated NodeAllocatableResourceClaimStatus nodeAllocatableResourceClaimStatuses = 21;
  repeated PodVolumeHealth volumeHealth = 22;
}

message PodTemplateSpec {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional PodSpec spec = 2;
}

message PodVolumeHealth {
  optional string name = 1 [(keep_zero) = true];
  repeated VolumeHealthCondition healthConditions = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 3;
}

message PortStatus {
  optional int32 port = 1 [(keep_zero) = true];
  optional string protocol = 2 [(keep_zero) = true];
  optional string error = 3 [(keep_zero) = true];
}

message PortworxVolumeSource {
  optional string volumeID = 1 [(keep_zero) = true];
  optional string fsType = 2;
  optional bool readOnly = 3;
}

message PreferredSchedulingTerm {
  optional int32 weight = 1 [(keep_zero) = true];
  optional NodeSelectorTerm preference = 2;
}

message Probe {
  optional ProbeHandler handler = 1 [(inline) = true];
  optional int32 initialDelaySeconds = 2;
  optional int32 timeoutSeconds = 3;
  optional int32 periodSeconds = 4;
  optional int32 successThreshold = 5;
  optional int32 failureThreshold = 6;
  optional int64 terminationGracePeriodSeconds = 7 [(keep_zero) = true];
}

message ProbeHandler {
  optional ExecAction exec = 1;
  optional HTTPGetAction httpGet = 2;
  optional TCPSocketAction tcpSocket = 3;
  optional GRPCAction grpc = 4;
}

message ProjectedVolumeSource {
  repeated VolumeProjection sources = 1;
  optional int32 defaultMode = 2 [(keep_zero) = true];
  optional int64 defaultUser = 3 [(keep_zero) = true];
}

message QuobyteVolumeSource {
  optional string registry = 1 [(keep_zero) = true];
  optional string volume = 2 [(keep_zero) = true];
  optional bool readOnly = 3;
  optional string user = 4;
  optional string group = 5;
  optional string tenant = 6;
}

message RBDVolumeSource {
  repeated string monitors = 1;
  optional string image = 2 [(keep_zero) = true];
  optional string fsType = 3;
  optional string pool = 4;
  optional string user = 5;
  optional string keyring = 6;
  optional LocalObjectReference secretRef = 7;
  optional bool readOnly = 8;
}

message ResourceClaim {
  optional string name = 1 [(keep_zero) = true];
  optional string request = 2;
}

message ResourceFieldSelector {
  optional string containerName = 1;
  optional string resource = 2 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.api.resource.Quantity divisor = 3;
}

message ResourceHealth {
  optional string resourceID = 1 [(keep_zero) = true];
  optional string health = 2;
  optional string message = 6 [(keep_zero) = true];
}

message ResourceRequirements {
  map<string, .k8s.io.apimachinery.pkg.api.resource.Quantity> limits = 1;
  map<string, .k8s.io.apimachinery.pkg.api.resource.Quantity> requests = 2;
  repeated ResourceClaim claims = 3;
}

message ResourceStatus {
  optional string name = 1 [(keep_zero) = true];
  repeated ResourceHealth resources = 2;
}

message SELinuxOptions {
  optional string user = 1;
  optional string role = 2;
  optional string type = 3;
  optional string level = 4;
}

message ScaleIOVolumeSource {
  optional string gateway = 1 [(keep_zero) = true];
  optional string system = 2 [(keep_zero) = true];
  optional LocalObjectReference secretRef = 3;
  optional bool sslEnabled = 4;
  optional string protectionDomain = 5;
  optional string storagePool = 6;
  optional string storageMode = 7;
  optional string volumeName = 8;
  optional string fsType = 9;
  optional bool readOnly = 10;
}

message SeccompProfile {
  optional string type = 1 [(keep_zero) = true];
  optional string localhostProfile = 2 [(keep_zero) = true];
}

message SecretEnvSource {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional bool optional = 2 [(keep_zero) = true];
}

message SecretKeySelector {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional string key = 2 [(keep_zero) = true];
  optional bool optional = 3 [(keep_zero) = true];
}

message SecretProjection {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  repeated KeyToPath items = 2;
  optional bool optional = 4 [(keep_zero) = true];
}

message SecretVolumeSource {
  optional string secretName = 1;
  repeated KeyToPath items = 2;
  optional int32 defaultMode = 3 [(keep_zero) = true];
  optional bool optional = 4 [(keep_zero) = true];
  optional int64 defaultUser = 5 [(keep_zero) = true];
}

message SecurityContext {
  optional Capabilities capabilities = 1;
  optional bool privileged = 2 [(keep_zero) = true];
  optional SELinuxOptions seLinuxOptions = 3;
  optional int64 runAsUser = 4 [(keep_zero) = true];
  optional bool runAsNonRoot = 5 [(keep_zero) = true];
  optional bool readOnlyRootFilesystem = 6 [(keep_zero) = true];
  optional bool allowPrivilegeEscalation = 7 [(keep_zero) = true];
  optional int64 runAsGroup = 8 [(keep_zero) = true];
  optional string procMount = 9 [(keep_zero) = true];
  optional WindowsSecurityContextOptions windowsOptions = 10;
  optional SeccompProfile seccompProfile = 11;
  optional AppArmorProfile appArmorProfile = 12;
}

message Service {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ServiceSpec spec = 2;
  optional ServiceStatus status = 3;
}

message ServiceAccount {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated ObjectReference secrets = 2;
  repeated LocalObjectReference imagePullSecrets = 3;
  optional bool automountServiceAccountToken = 4 [(keep_zero) = true];
}

message ServiceAccountList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ServiceAccount items = 2;
}

message ServiceAccountTokenProjection {
  optional string audience = 1;
  optional int64 expirationSeconds = 2 [(keep_zero) = true];
  optional string path = 3 [(keep_zero) = true];
  optional int64 user = 4 [(keep_zero) = true];
}

message ServiceList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Service items = 2;
}

message ServicePort {
  optional string name = 1;
  optional string protocol = 2;
  optional int32 port = 3 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString targetPort = 4;
  optional int32 nodePort = 5;
  optional string appProtocol = 6 [(keep_zero) = true];
}

message ServiceSpec {
  repeated ServicePort ports = 1;
  map<string, string> selector = 2;
  optional string clusterIP = 3;
  optional string type = 4;
  repeated string externalIPs = 5;
  optional string sessionAffinity = 7;
  optional string loadBalancerIP = 8;
  repeated string loadBalancerSourceRanges = 9;
  optional string externalName = 10;
  optional string externalTrafficPolicy = 11;
  optional int32 healthCheckNodePort = 12;
  optional bool publishNotReadyAddresses = 13;
  optional SessionAffinityConfig sessionAffinityConfig = 14;
  optional string ipFamilyPolicy = 17 [(keep_zero) = true];
  repeated string clusterIPs = 18;
  repeated string ipFamilies = 19;
  optional bool allocateLoadBalancerNodePorts = 20 [(keep_zero) = true];
  optional string loadBalancerClass = 21 [(keep_zero) = true];
  optional string internalTrafficPolicy = 22 [(keep_zero) = true];
  optional string trafficDistribution = 23 [(keep_zero) = true];
}

message ServiceStatus {
  optional LoadBalancerStatus loadBalancer = 1;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.Condition conditions = 2;
}

message SessionAffinityConfig {
  optional ClientIPConfig clientIP = 1;
}

message SleepAction {
  optional int64 seconds = 1 [(keep_zero) = true];
}

message StorageOSVolumeSource {
  optional string volumeName = 1;
  optional string volumeNamespace = 2;
  optional string fsType = 3;
  optional bool readOnly = 4;
  optional LocalObjectReference secretRef = 5;
}

message Sysctl {
  optional string name = 1 [(keep_zero) = true];
  optional string value = 2 [(keep_zero) = true];
}

message TCPSocketAction {
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString port = 1;
  optional string host = 2;
}

message Taint {
  optional string key = 1 [(keep_zero) = true];
  optional string value = 2;
  optional string effect = 3 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time timeAdded = 4;
}

message Toleration {
  optional string key = 1;
  optional string operator = 2;
  optional string value = 3;
  optional string effect = 4;
  optional int64 tolerationSeconds = 5 [(keep_zero) = true];
}

message TopologySpreadConstraint {
  optional int32 maxSkew = 1 [(keep_zero) = true];
  optional string topologyKey = 2 [(keep_zero) = true];
  optional string whenUnsatisfiable = 3 [(keep_zero) = true];
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector labelSelector = 4;
  optional int32 minDomains = 5 [(keep_zero) = true];
  optional string nodeAffinityPolicy = 6 [(keep_zero) = true];
  optional string nodeTaintsPolicy = 7 [(keep_zero) = true];
  repeated string matchLabelKeys = 8;
}

message TypedLocalObjectReference {
  optional string apiGroup = 1 [(keep_zero) = true];
  optional string kind = 2 [(keep_zero) = true];
  optional string name = 3 [(keep_zero) = true];
}

message TypedObjectReference {
  optional string apiGroup = 1 [(keep_zero) = true];
  optional string kind = 2 [(keep_zero) = true];
  optional string name = 3 [(keep_zero) = true];
  optional string namespace = 4 [(keep_zero) = true];
}

message Volume {
  optional string name = 1 [(keep_zero) = true];
  optional VolumeSource volumeSource = 2 [(inline) = true];
}

message VolumeDevice {
  optional string name = 1 [(keep_zero) = true];
  optional string devicePath = 2 [(keep_zero) = true];
}

message VolumeHealthCondition {
  optional string status = 1 [(keep_zero) = true];
  optional string reason = 2 [(keep_zero) = true];
  optional string message = 3;
}

message VolumeMount {
  optional string name = 1 [(keep_zero) = true];
  optional bool readOnly = 2;
  optional string mountPath = 3 [(keep_zero) = true];
  optional string subPath = 4;
  optional string mountPropagation = 5 [(keep_zero) = true];
  optional string subPathExpr = 6;
  optional string recursiveReadOnly = 7 [(keep_zero) = true];
  repeated string bindMountOptions = 8;
}

message VolumeMountStatus {
  optional string name = 1 [(keep_zero) = true];
  optional string mountPath = 2 [(keep_zero) = true];
  optional bool readOnly = 3;
  optional string recursiveReadOnly = 4 [(keep_zero) = true];
  optional VolumeStatus volumeStatus = 5;
}

message VolumeProjection {
  optional SecretProjection secret = 1;
  optional DownwardAPIProjection downwardAPI = 2;
  optional ConfigMapProjection configMap = 3;
  optional ServiceAccountTokenProjection serviceAccountToken = 4;
  optional ClusterTrustBundleProjection clusterTrustBundle = 5;
  optional PodCertificateProjection podCertificate = 6;
}

message VolumeResourceRequirements {
  map<string, .k8s.io.apimachinery.pkg.api.resource.Quantity> limits = 1;
  map<string, .k8s.io.apimachinery.pkg.api.resource.Quantity> requests = 2;
}

message VolumeSource {
  optional HostPathVolumeSource hostPath = 1;
  optional EmptyDirVolumeSource emptyDir = 2;
  optional GCEPersistentDiskVolumeSource gcePersistentDisk = 3;
  optional AWSElasticBlockStoreVolumeSource awsElasticBlockStore = 4;
  optional GitRepoVolumeSource gitRepo = 5;
  optional SecretVolumeSource secret = 6;
  optional NFSVolumeSource nfs = 7;
  optional ISCSIVolumeSource iscsi = 8;
  optional GlusterfsVolumeSource glusterfs = 9;
  optional PersistentVolumeClaimVolumeSource persistentVolumeClaim = 10;
  optional RBDVolumeSource rbd = 11;
  optional FlexVolumeSource flexVolume = 12;
  optional CinderVolumeSource cinder = 13;
  optional CephFSVolumeSource cephfs = 14;
  optional FlockerVolumeSource flocker = 15;
  optional DownwardAPIVolumeSource downwardAPI = 16;
  optional FCVolumeSource fc = 17;
  optional AzureFileVolumeSource azureFile = 18;
  optional ConfigMapVolumeSource configMap = 19;
  optional VsphereVirtualDiskVolumeSource vsphereVolume = 20;
  optional QuobyteVolumeSource quobyte = 21;
  optional AzureDiskVolumeSource azureDisk = 22;
  optional PhotonPersistentDiskVolumeSource photonPersistentDisk = 23;
  optional PortworxVolumeSource portworxVolume = 24;
  optional ScaleIOVolumeSource scaleIO = 25;
  optional ProjectedVolumeSource projected = 26;
  optional StorageOSVolumeSource storageos = 27;
  optional CSIVolumeSource csi = 28;
  optional EphemeralVolumeSource ephemeral = 29;
  optional ImageVolumeSource image = 30;
}

message VolumeStatus {
  optional ImageVolumeStatus image = 1;
}

message VsphereVirtualDiskVolumeSource {
  optional string volumePath = 1 [(keep_zero) = true];
  optional string fsType = 2;
  optional string storagePolicyName = 3;
  optional string storagePolicyID = 4;
}

message WeightedPodAffinityTerm {
  optional int32 weight = 1 [(keep_zero) = true];
  optional PodAffinityTerm podAffinityTerm = 2;
}

message WindowsSecurityContextOptions {
  optional string gmsaCredentialSpecName = 1 [(keep_zero) = true];
  optional string gmsaCredentialSpec = 2 [(keep_zero) = true];
  optional string runAsUserName = 3 [(keep_zero) = true];
  optional bool hostProcess = 4 [(keep_zero) = true];
}
`
