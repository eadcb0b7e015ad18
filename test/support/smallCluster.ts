/**
 * A small cluster with something in every section, for tests of what a run shows: 4 nodes pulling images from a
 * registry whose credentials are revoked at 5 s (401s, BackOff), and a patch flood on a server of 1 seat per APF
 * level (429s the clients retry). One virtual minute, ~2 s of CPU.
 */
export const smallCluster = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: small-cluster }
seed: 3
duration: 1m
cluster:
  nodes: 4
  podsPerNode: 3
  shape: { cpu: "8", memory: 32Gi }
  serviceTime: { readBaseMs: 1, writeBaseMs: 50, maxRequestsInflight: 4, maxMutatingRequestsInflight: 1 }
  images:
    registries:
      - { host: registry.example, latency: 100ms, bandwidth: 1Mi, requiresAuth: true, tokenTtl: 1h }
    images:
      - { name: registry.example/pause:3.9, layers: [{ digest: "sha256:pause", size: 700Ki }], prePulled: true }
      - { name: registry.example/api:1, layers: [{ digest: "sha256:api1", size: 10Mi }] }
      - { name: registry.example/web:1, layers: [{ digest: "sha256:web1", size: 10Mi }] }
    pods: [registry.example/pause:3.9, registry.example/api:1, registry.example/web:1]
    credentialProvider: { matchImages: [registry.example], defaultCacheDuration: 30s, latency: 300ms, cacheKeyType: Registry }
faults:
  - { type: expire-registry-credentials, registry: registry.example, at: 5s }
setup:
  namespaces: [flood]
  objects: [{ name: cms, resource: configmaps, namespace: flood, count: 5 }]
phases:
  - name: flood
    duration: 10s
    actions:
      - { type: constant-arrival-rate, name: patches, rate: 100, maxInFlight: 10000, request: { verb: patch, objects: cms } }
thresholds:
  "lease_renew_latency": ["p(99) < 5s"]
  "errors{metric:setup}": ["rate == 0"]
`
