/** Service rows (`printService`, printed wide by the server: load-balancer addresses are not clipped). */
import type { KObject } from "../../Object.js"
import { ageColumn, column, nameColumn } from "../Columns.js"
import { timestampSince } from "../HumanDuration.js"
import { arr, num, rec, str, type Printer } from "../Printer.js"
import { formatLabels } from "./Labels.js"

const externalIP = (spec: Record<string, unknown>, status: Record<string, unknown>): string => {
  const externalIPs = arr(spec.externalIPs).map(str)
  switch (spec.type) {
    case "ClusterIP":
    case "NodePort":
      return externalIPs.length > 0 ? externalIPs.join(",") : "<none>"
    case "LoadBalancer": {
      const ingress = arr(rec(rec(status.loadBalancer)).ingress).map((i) => str(rec(i).ip) || str(rec(i).hostname)).filter((s) => s !== "")
      const lbIps = [...new Set(ingress)].sort().join(",")
      if (externalIPs.length > 0) return [...(lbIps ? lbIps.split(",") : []), ...externalIPs].join(",")
      return lbIps || "<pending>"
    }
    case "ExternalName":
      return str(spec.externalName)
    default:
      return "<unknown>"
  }
}

const ports = (spec: Record<string, unknown>): string =>
  arr(spec.ports)
    .map(rec)
    .map((p) => (num(p.nodePort) > 0 ? `${num(p.port)}:${num(p.nodePort)}/${str(p.protocol)}` : `${num(p.port)}/${str(p.protocol)}`))
    .join(",") || "<none>"

export const servicePrinter: Printer = {
  columns: [
    nameColumn,
    column("Type", "string", "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer."),
    column("Cluster-IP", "string", "clusterIP is the IP address of the service and is usually assigned randomly."),
    column("External-IP", "string", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service."),
    column("Port(s)", "string", "The list of ports that are exposed by this service."),
    ageColumn,
    column("Selector", "string", "Route service traffic to pods with label keys and values matching this selector.", { priority: 1 })
  ],
  row: (svc: KObject, now: number) => {
    const spec = rec(svc.spec)
    const clusterIPs = arr(spec.clusterIPs)
    return {
      cells: [
        svc.metadata.name ?? "",
        str(spec.type),
        clusterIPs.length > 0 ? str(clusterIPs[0]) : "<none>",
        externalIP(spec, rec(svc.status)),
        ports(spec),
        timestampSince(svc.metadata.creationTimestamp, now),
        formatLabels(rec(spec.selector))
      ]
    }
  }
}
