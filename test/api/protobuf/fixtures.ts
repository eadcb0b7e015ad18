/** Rich objects of every served kind, as the server stores and serves them in JSON. */
const meta = (name: string, namespace?: string) => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: "6f1c2b9e-1c1a-4b7a-9f3e-2d4c5b6a7e8f",
  resourceVersion: "1234",
  generation: 3,
  creationTimestamp: "2024-05-01T12:00:00Z",
  labels: { app: "web", "platform.io/tier": "front" },
  annotations: { note: "ünïcödé ✓", empty: "" },
  finalizers: ["example.com/guard"],
  ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-5d4f", uid: "0b8e0c36-5d0a-4f43-8a49-1f5fb5d0a111", controller: true, blockOwnerDeletion: false }],
  managedFields: [
    {
      manager: "kubectl",
      operation: "Update",
      apiVersion: "v1",
      time: "2024-05-01T12:00:00Z",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:metadata": { "f:labels": { ".": {}, "f:app": {} } } }
    }
  ]
})

export const pod = {
  kind: "Pod",
  apiVersion: "v1",
  metadata: { ...meta("web-0", "default"), deletionTimestamp: "2024-05-01T12:05:00Z", deletionGracePeriodSeconds: 0 },
  spec: {
    volumes: [
      { name: "config", configMap: { name: "web-config", items: [{ key: "a", path: "a.txt", mode: 420 }], defaultMode: 420 } },
      { name: "scratch", emptyDir: { sizeLimit: "1Gi" } },
      { name: "token", projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: "token" } }] } }
    ],
    initContainers: [{ name: "init", image: "busybox:1.36", command: ["sh", "-c", "true"] }],
    containers: [
      {
        name: "web",
        image: "nginx:1.25",
        args: ["--port", "8080"],
        ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
        env: [
          { name: "MODE", value: "prod" },
          { name: "POD_IP", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "status.podIP" } } },
          { name: "KEY", valueFrom: { configMapKeyRef: { name: "web-config", key: "a", optional: true } } }
        ],
        resources: { limits: { cpu: "500m", memory: "256Mi" }, requests: { cpu: "100m", memory: "128Mi" } },
        volumeMounts: [{ name: "config", mountPath: "/etc/web", readOnly: true }],
        livenessProbe: { httpGet: { path: "/healthz", port: 8080, scheme: "HTTP" }, initialDelaySeconds: 5, periodSeconds: 10, failureThreshold: 3 },
        readinessProbe: { tcpSocket: { port: "http" }, timeoutSeconds: 1 },
        terminationMessagePath: "/dev/termination-log",
        terminationMessagePolicy: "File",
        imagePullPolicy: "IfNotPresent",
        securityContext: { runAsUser: 0, runAsNonRoot: false, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } }
      }
    ],
    restartPolicy: "Always",
    terminationGracePeriodSeconds: 30,
    activeDeadlineSeconds: 0,
    dnsPolicy: "ClusterFirst",
    nodeSelector: { "kubernetes.io/os": "linux" },
    serviceAccountName: "default",
    serviceAccount: "default",
    nodeName: "node-1",
    hostNetwork: true,
    securityContext: { fsGroup: 2000 },
    schedulerName: "default-scheduler",
    tolerations: [
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      { key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" }
    ],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["a", "b"] }] }]
        }
      },
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: "web" } }, topologyKey: "kubernetes.io/hostname" } }
        ]
      }
    },
    priority: 0,
    enableServiceLinks: true,
    preemptionPolicy: "PreemptLowerPriority",
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: { app: "web" } } }]
  },
  status: {
    phase: "Running",
    conditions: [
      { type: "Ready", status: "True", lastProbeTime: null, lastTransitionTime: "2024-05-01T12:00:10Z" },
      { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: "2024-05-01T12:00:01Z" }
    ],
    hostIP: "10.0.0.1",
    podIP: "10.1.0.5",
    podIPs: [{ ip: "10.1.0.5" }],
    startTime: "2024-05-01T12:00:02Z",
    containerStatuses: [
      {
        name: "web",
        state: { running: { startedAt: "2024-05-01T12:00:05Z" } },
        lastState: { terminated: { exitCode: 137, reason: "OOMKilled", startedAt: "2024-05-01T11:00:00Z", finishedAt: "2024-05-01T11:59:00Z", containerID: "containerd://abc" } },
        ready: true,
        restartCount: 0,
        image: "nginx:1.25",
        imageID: "",
        containerID: "containerd://def",
        started: true
      }
    ],
    qosClass: "Burstable"
  }
}

export const node = {
  kind: "Node",
  apiVersion: "v1",
  metadata: meta("node-1"),
  spec: {
    podCIDR: "10.1.0.0/24",
    podCIDRs: ["10.1.0.0/24"],
    providerID: "sim://node-1",
    unschedulable: true,
    taints: [
      { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule", timeAdded: "2024-05-01T12:00:00Z" },
      { key: "node.kubernetes.io/unreachable", effect: "NoExecute" }
    ]
  },
  status: {
    capacity: { cpu: "4", memory: "16Gi", pods: "110" },
    allocatable: { cpu: "3800m", memory: "15Gi", pods: "110" },
    conditions: [
      {
        type: "Ready",
        status: "Unknown",
        lastHeartbeatTime: "2024-05-01T12:00:00Z",
        lastTransitionTime: "2024-05-01T12:00:40Z",
        reason: "NodeStatusUnknown",
        message: "Kubelet stopped posting node status."
      }
    ],
    addresses: [
      { type: "InternalIP", address: "10.0.0.1" },
      { type: "Hostname", address: "node-1" }
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: "m",
      systemUUID: "s",
      bootID: "b",
      kernelVersion: "6.1.0",
      osImage: "Debian",
      containerRuntimeVersion: "containerd://1.7.0",
      kubeletVersion: "v1.26.0",
      kubeProxyVersion: "v1.26.0",
      operatingSystem: "linux",
      architecture: "amd64"
    },
    images: [{ names: ["nginx:1.25"], sizeBytes: 70000000 }]
  }
}

export const namespace = {
  kind: "Namespace",
  apiVersion: "v1",
  metadata: meta("team-a"),
  spec: { finalizers: ["kubernetes"] },
  status: { phase: "Terminating", conditions: [{ type: "NamespaceContentRemaining", status: "True", lastTransitionTime: "2024-05-01T12:00:00Z", reason: "SomeResourcesRemain", message: "pods: 3" }] }
}

export const configMap = {
  kind: "ConfigMap",
  apiVersion: "v1",
  metadata: meta("web-config", "default"),
  immutable: false,
  data: { a: "1", "b.yaml": "x: [1, 2]\n", empty: "" },
  binaryData: { blob: Buffer.from([0, 1, 2, 250]).toString("base64") }
}

export const service = {
  kind: "Service",
  apiVersion: "v1",
  metadata: meta("web", "default"),
  spec: {
    ports: [{ name: "http", protocol: "TCP", port: 80, targetPort: 8080, nodePort: 30080 }, { name: "metrics", port: 9090, targetPort: "metrics" }],
    selector: { app: "web" },
    clusterIP: "10.96.0.10",
    clusterIPs: ["10.96.0.10"],
    type: "NodePort",
    sessionAffinity: "None",
    externalTrafficPolicy: "Cluster",
    ipFamilies: ["IPv4"],
    ipFamilyPolicy: "SingleStack",
    internalTrafficPolicy: "Cluster"
  },
  status: { loadBalancer: {} }
}

export const deployment = {
  kind: "Deployment",
  apiVersion: "apps/v1",
  metadata: meta("web", "default"),
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "NotIn", values: ["db"] }] },
    template: { metadata: { labels: { app: "web" }, creationTimestamp: null }, spec: { containers: [{ name: "web", image: "nginx:1.25", resources: {} }] } },
    strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: 1 } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
    paused: true
  },
  status: {
    observedGeneration: 3,
    replicas: 2,
    updatedReplicas: 2,
    readyReplicas: 1,
    availableReplicas: 1,
    unavailableReplicas: 1,
    conditions: [
      {
        type: "Available",
        status: "False",
        lastUpdateTime: "2024-05-01T12:00:00Z",
        lastTransitionTime: "2024-05-01T12:00:00Z",
        reason: "MinimumReplicasUnavailable",
        message: "Deployment does not have minimum availability."
      }
    ]
  }
}

export const lease = {
  kind: "Lease",
  apiVersion: "coordination.platform/v1",
  metadata: meta("node-1", "platform-node-lease"),
  spec: {
    holderIdentity: "node-1",
    leaseDurationSeconds: 40,
    acquireTime: "2024-05-01T12:00:00.000000Z",
    renewTime: "2024-05-01T12:00:30.123456Z",
    leaseTransitions: 0
  }
}

export const event = {
  kind: "Event",
  apiVersion: "events.platform/v1",
  metadata: meta("web-0.17a2b3c4d5e6f708", "default"),
  eventTime: "2024-05-01T12:00:00.000001Z",
  series: { count: 2, lastObservedTime: "2024-05-01T12:01:00.500000Z" },
  reportingController: "platform.io/scheduler",
  reportingInstance: "scheduler-1",
  action: "Binding",
  reason: "Scheduled",
  regarding: { kind: "Pod", namespace: "default", name: "web-0", uid: "6f1c2b9e-1c1a-4b7a-9f3e-2d4c5b6a7e8f", apiVersion: "v1", resourceVersion: "10" },
  related: { kind: "Node", name: "node-1", apiVersion: "v1" },
  note: "Successfully assigned default/web-0 to node-1",
  type: "Normal",
  deprecatedSource: { component: "scheduler", host: "node-1" },
  deprecatedFirstTimestamp: "2024-05-01T12:00:00Z",
  deprecatedLastTimestamp: "2024-05-01T12:01:00Z",
  deprecatedCount: 2
}

export const coreEvent = {
  kind: "Event",
  apiVersion: "v1",
  metadata: meta("web-0.17a2b3c4d5e6f709", "default"),
  involvedObject: { kind: "Pod", namespace: "default", name: "web-0", uid: "6f1c2b9e-1c1a-4b7a-9f3e-2d4c5b6a7e8f", apiVersion: "v1", fieldPath: "spec.containers{web}" },
  reason: "Pulled",
  message: "Container image already present",
  source: { component: "kubelet", host: "node-1" },
  firstTimestamp: "2024-05-01T12:00:00Z",
  lastTimestamp: "2024-05-01T12:00:00Z",
  count: 1,
  type: "Normal",
  eventTime: null,
  reportingComponent: "kubelet",
  reportingInstance: "node-1"
}

export const status = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: 'Pod "web-0" is invalid: spec.containers[0].image: Required value',
  reason: "Invalid",
  details: {
    name: "web-0",
    kind: "Pod",
    causes: [{ reason: "FieldValueRequired", message: "Required value", field: "spec.containers[0].image" }],
    retryAfterSeconds: 1
  },
  code: 422
}

export const podList = {
  kind: "PodList",
  apiVersion: "v1",
  metadata: { resourceVersion: "99", continue: "eyJ2IjoibWV0YS5wbGF0Zm9ybS92MSJ9", remainingItemCount: 0 },
  items: [
    { metadata: { name: "a", namespace: "default" }, spec: { containers: [{ name: "c", image: "i" }] }, status: { phase: "Pending" } },
    { metadata: { name: "b", namespace: "default" }, spec: { containers: [{ name: "c", image: "i" }] }, status: {} }
  ]
}

export const deleteOptions = {
  kind: "DeleteOptions",
  apiVersion: "v1",
  gracePeriodSeconds: 0,
  preconditions: { uid: "u", resourceVersion: "7" },
  propagationPolicy: "Foreground",
  dryRun: ["All"]
}

export const binding = {
  kind: "Binding",
  apiVersion: "v1",
  metadata: { name: "web-0", namespace: "default" },
  target: { kind: "Node", apiVersion: "v1", name: "node-1" }
}

export const eviction = {
  kind: "Eviction",
  apiVersion: "policy/v1",
  metadata: { name: "web-0", namespace: "default" },
  deleteOptions: { gracePeriodSeconds: 10 }
}

export const everyKind: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  pod,
  node,
  namespace,
  configMap,
  service,
  deployment,
  lease,
  event,
  coreEvent,
  status,
  podList,
  deleteOptions,
  binding,
  eviction
}
