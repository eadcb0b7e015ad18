"""The official Python client against a clustersim server: one check per argument, a JSON line of findings each.

Usage: checks.py <server-url> <check> [<bearer-token> <ca-file>]
"""
import datetime
import json
import sys
import urllib.request

from kubernetes import client, dynamic, watch

url, check = sys.argv[1], sys.argv[2]
configuration = client.Configuration()
configuration.host = url
if len(sys.argv) > 4:
    configuration.api_key = {"authorization": "Bearer " + sys.argv[3]}
    configuration.ssl_ca_cert = sys.argv[4]
api_client = client.ApiClient(configuration)
core = client.CoreV1Api(api_client)


def out(value):
    print(json.dumps(value, default=str))


def admin(action):
    urllib.request.urlopen(urllib.request.Request(url + "/clustersim/" + action, method="POST")).read()


def configmap(name):
    return core.create_namespaced_config_map("default", client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name), data={"k": name}))


if check == "watch":
    for name in ["a", "b"]:
        configmap(name)
    seen = []
    w = watch.Watch()
    for event in w.stream(core.list_namespaced_config_map, "default", timeout_seconds=10):
        seen.append([event["type"], event["object"].metadata.name])
        if len(seen) == 2:
            w.stop()
    configmap("c")
    out({"events": seen})

elif check == "watch-410":
    old = configmap("a").metadata.resource_version
    configmap("b")
    admin("compact")
    result = {}
    try:
        for event in watch.Watch().stream(core.list_namespaced_config_map, "default", resource_version=old, timeout_seconds=5):
            result.setdefault("events", []).append([event["type"], event["raw_object"].get("code") if event["type"] == "ERROR" else None])
            if event["type"] == "ERROR":
                break
    except client.exceptions.ApiException as e:
        result["exception"] = {"status": e.status, "reason": e.reason}
    out(result)

elif check == "leases":
    coordination = client.CoordinationV1Api(api_client)
    now = datetime.datetime.now(datetime.timezone.utc)
    body = client.V1Lease(
        metadata=client.V1ObjectMeta(name="n1"),
        spec=client.V1LeaseSpec(holder_identity="n1", lease_duration_seconds=40, renew_time=now, acquire_time=now),
    )
    created = coordination.create_namespaced_lease("kube-node-lease", body)
    created.spec.holder_identity = "n2"
    replaced = coordination.replace_namespaced_lease("n1", "kube-node-lease", created)
    read = coordination.read_namespaced_lease("n1", "kube-node-lease")
    listed = coordination.list_namespaced_lease("kube-node-lease")
    out({
        "created": [created.api_version, created.metadata.namespace],
        "holder": read.spec.holder_identity,
        "renewTimeMicros": read.spec.renew_time.microsecond == now.microsecond,
        "rvChanged": replaced.metadata.resource_version != created.metadata.resource_version,
        "listed": [item.metadata.name for item in listed.items],
    })

elif check == "events":
    events = client.EventsV1Api(api_client)
    now = datetime.datetime.now(datetime.timezone.utc)
    body = client.EventsV1Event(
        metadata=client.V1ObjectMeta(name="p1.1"),
        event_time=now,
        reporting_controller="example.com/controller",
        reporting_instance="controller-1",
        action="Testing",
        reason="Tested",
        type="Normal",
        note="hello from python",
        regarding=client.V1ObjectReference(kind="Pod", namespace="default", name="p1"),
    )
    created = events.create_namespaced_event("default", body)
    listed = events.list_namespaced_event("default")
    legacy = core.list_namespaced_event("default", field_selector="involvedObject.name=p1")
    out({
        "created": [created.api_version, created.note],
        "listed": [e.metadata.name for e in listed.items],
        "core": [[e.involved_object.kind, e.reason, e.message, e.reporting_component] for e in legacy.items],
    })

elif check == "token":
    # Over HTTPS with a bearer token: allowed where a RoleBinding says so, upstream's 403 elsewhere.
    listed = core.list_namespaced_pod("default")
    try:
        core.list_namespaced_pod("kube-system")
        denied = None
    except client.exceptions.ApiException as e:
        body = json.loads(e.body)
        denied = [e.status, body["reason"], body["message"]]
    out({"listed": [p.metadata.name for p in listed.items], "denied": denied})

elif check == "apply":
    # Client 22.x sends an apply body only when it is already text (its REST layer serializes dicts only for JSON
    # content types; kubernetes-client/python fixed that in 25.x), so the manifests go as JSON text.
    configmaps = dynamic.DynamicClient(api_client).resources.get(api_version="v1", kind="ConfigMap")

    def apply(data, manager, force=None):
        body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default"}, "data": data})
        return configmaps.server_side_apply(body=body, name="cm", namespace="default", field_manager=manager, force_conflicts=force).to_dict()

    created = apply({"a": "1"}, "tool-a")
    result = {"created": created["metadata"]["managedFields"]}
    try:
        apply({"a": "2"}, "tool-b")
    except client.exceptions.ApiException as e:
        body = json.loads(e.body)
        result["conflict"] = [e.status, body["reason"], body["message"], body["details"]]
    forced = apply({"a": "2"}, "tool-b", force=True)
    result["forced"] = [forced["data"], [[e["manager"], e["fieldsV1"]] for e in forced["metadata"]["managedFields"]]]
    out(result)

elif check == "apply-pod":
    # Apply creates a pod of two containers; another manager changing one container's image conflicts until forced;
    # a strategic merge patch (the typed client's default for a dict body) changes one container and keeps the other.
    pods = dynamic.DynamicClient(api_client).resources.get(api_version="v1", kind="Pod")

    def apply(images, manager, force=None):
        containers = [{"name": name, "image": image} for name, image in images]
        body = json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"}, "spec": {"containers": containers}})
        return pods.server_side_apply(body=body, name="p", namespace="default", field_manager=manager, force_conflicts=force).to_dict()

    def images(pod):
        return [[c["name"], c["image"]] for c in pod["spec"]["containers"]]

    created = apply([("a", "a:1"), ("b", "b:1")], "tool-a")
    result = {"created": images(created), "managers": [[e["manager"], e["operation"]] for e in created["metadata"]["managedFields"]]}
    try:
        apply([("b", "b:2")], "tool-b")
    except client.exceptions.ApiException as e:
        result["conflict"] = [e.status, json.loads(e.body)["message"]]
    result["forced"] = images(apply([("b", "b:2")], "tool-b", force=True))
    patched = core.patch_namespaced_pod("p", "default", {"spec": {"containers": [{"name": "a", "image": "a:3"}]}}, field_manager="editor")
    result["patched"] = [[c.name, c.image] for c in patched.spec.containers]
    result["owners"] = [[e.manager, e.operation, sorted(e.fields_v1["f:spec"]["f:containers"].keys())] for e in patched.metadata.managed_fields]
    out(result)

elif check == "live-read":
    # a live cluster's nodes and pods as the typed client deserialises them (it refuses a missing required field)
    nodes = core.list_node().items
    pods = core.list_namespaced_pod("default").items
    out({
        "nodes": [[n.metadata.name, n.status.node_info.kubelet_version, n.status.node_info.boot_id, n.spec.pod_cidr,
                   [[a.type, a.address] for a in n.status.addresses]] for n in nodes],
        "pods": [[p.metadata.name, p.status.phase, p.status.pod_ip, p.status.host_ip,
                  [[c.name, c.image, c.image_id, c.container_id] for c in p.status.container_statuses or []]] for p in pods],
    })

elif check == "invalid-workloads":
    # A pod without an image and a Deployment whose selector does not match its template: 422 Invalid with causes.
    apps = client.AppsV1Api(api_client)
    template = {"metadata": {"labels": {"app": "b"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    attempts = [
        lambda: core.create_namespaced_pod("default", {"metadata": {"name": "ni"}, "spec": {"containers": [{"name": "c"}]}}),
        lambda: apps.create_namespaced_deployment("default", {"metadata": {"name": "mismatch"}, "spec": {"selector": {"matchLabels": {"app": "a"}}, "template": template}}),
    ]
    result = []
    for attempt in attempts:
        try:
            attempt()
            result.append("stored")
        except client.exceptions.ApiException as e:
            body = json.loads(e.body)
            result.append([e.status, body["reason"], body["message"], body["details"]["causes"]])
    out(result)

else:
    raise SystemExit("unknown check " + check)
