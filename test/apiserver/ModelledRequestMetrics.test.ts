/**
 * The modelled server's request series (simulator/apiserver/ModelledRequestMetrics.ts): requests are found by what
 * their labels are made of — verb, resource with subresource, and for a collection whether a namespace is given —
 * so distinct request objects of one shape count into one series and a LIST in a namespace and across all
 * namespaces into two; the deprecated `_slo_` histogram writes the SLI's observations under its own name.
 */
import { describe, expect, it } from "@effect/vitest"
import { Registry } from "prom-client"
import { ModelledRequestMetrics } from "../../simulator/apiserver/ModelledRequestMetrics.js"

const request = (verb: string, resource: string, namespace: string | undefined) => ({ user: "u", groups: [], verb, resource, namespace })

/** Each sample line of `registry` (name and labels, value). */
const samples = async (registry: Registry): Promise<Map<string, number>> =>
  new Map(
    (await registry.metrics())
      .split("\n")
      .filter((l) => l !== "" && !l.startsWith("#"))
      .map((l) => [l.slice(0, l.lastIndexOf(" ")), Number(l.slice(l.lastIndexOf(" ") + 1))] as const)
  )

const labels = (verb: string, resource: string, subresource: string, scope: string, group = "", version = "v1") =>
  `group="${group}",version="${version}",resource="${resource}",subresource="${subresource}",scope="${scope}",component="apiserver"`

describe("the modelled server's request series", () => {
  it("counts requests of one shape in one series however many request objects send them, a collection's scope apart", async () => {
    const registry = new Registry()
    const metrics = new ModelledRequestMetrics([registry], () => 0)
    // two node agents' lease renewals: two objects, one series
    metrics.served(request("update", "leases", "kube-node-lease"), 200, 0, 0, 4)
    metrics.served(request("update", "leases", "kube-node-lease"), 200, 0, 0, 6)
    // the same verb and resource: by namespace and across all namespaces (`CleanScope`)
    metrics.served(request("list", "pods", "default"), 200, 0, 0, 30)
    metrics.served(request("list", "pods", undefined), 200, 0, 10, 130)
    metrics.served(request("list", "pods", undefined), 429, 0, 0, 0)
    // a subresource is its own series; a GET of a cluster-scoped object is `resource` scoped as one in a namespace
    metrics.served(request("patch", "nodes/status", undefined), 200, 0, 0, 2)
    metrics.served(request("get", "pods", "default"), 200, 0, 0, 1)
    metrics.served(request("get", "pods", undefined), 200, 0, 0, 1)
    const s = await samples(registry)
    const total = (verb: string, rest: string, code: number) => s.get(`apiserver_request_total{verb="${verb}",dry_run="",${rest},code="${code}"}`)
    expect(total("PUT", labels("PUT", "leases", "", "resource", "coordination.platform"), 200)).toBe(2)
    expect(total("LIST", labels("LIST", "pods", "", "namespace"), 200)).toBe(1)
    expect(total("LIST", labels("LIST", "pods", "", "cluster"), 200)).toBe(1)
    expect(total("LIST", labels("LIST", "pods", "", "cluster"), 429)).toBe(1)
    expect(total("PATCH", labels("PATCH", "nodes", "status", "resource"), 200)).toBe(1)
    expect(total("GET", labels("GET", "pods", "", "resource"), 200)).toBe(2)
    expect([...s.keys()].filter((k) => k.startsWith("apiserver_request_total{"))).toHaveLength(6)
    // the duration from arrival, the SLI from the start: the LIST across namespaces waited 10 ms for its seats
    const cluster = labels("LIST", "pods", "", "cluster")
    expect(s.get(`apiserver_request_duration_seconds_sum{verb="LIST",dry_run="",${cluster}}`)).toBeCloseTo(0.13, 9)
    expect(s.get(`apiserver_request_sli_duration_seconds_sum{verb="LIST",${cluster}}`)).toBeCloseTo(0.12, 9)
    expect(s.get(`apiserver_request_sli_duration_seconds_count{verb="PUT",${labels("PUT", "leases", "", "resource", "coordination.platform")}}`)).toBe(2)
  })

  it("writes the deprecated _slo_ histogram with the SLI's samples, series for series", async () => {
    const registry = new Registry()
    const metrics = new ModelledRequestMetrics([registry], () => 0)
    metrics.served(request("get", "pods", "default"), 200, 0, 5, 75)
    metrics.served(request("list", "pods", undefined), 200, 0, 0, 700)
    metrics.served(request("create", "events", "default"), 201, 0, 0, 30)
    const s = await samples(registry)
    const sli = [...s].filter(([k]) => k.startsWith("apiserver_request_sli_duration_seconds"))
    const slo = [...s].filter(([k]) => k.startsWith("apiserver_request_slo_duration_seconds"))
    expect(sli).toHaveLength(3 * (21 + 3))
    expect(slo).toEqual(sli.map(([k, v]) => [k.replace("_sli_", "_slo_"), v]))
    expect(s.get(`apiserver_request_slo_duration_seconds_bucket{le="0.1",verb="GET",${labels("GET", "pods", "", "resource")}}`)).toBe(1)
  })
})
