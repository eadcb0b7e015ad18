/** The printers of one line each (`printNamespace`, `printConfigMap`, `printDeployment`, `printReplicaSet`, `printLease`). */
import type { KObject } from "../../Object.js"
import { ageColumn, column, nameColumn } from "../Columns.js"
import { timestampSince } from "../HumanDuration.js"
import { arr, num, rec, str, type Printer } from "../Printer.js"
import { formatSelector } from "./Labels.js"

const age = (obj: KObject, now: number) => timestampSince(obj.metadata.creationTimestamp, now)

export const namespacePrinter: Printer = {
  columns: [nameColumn, column("Status", "string", "The status of the namespace"), ageColumn],
  row: (ns, now) => ({ cells: [ns.metadata.name ?? "", str(rec(ns.status).phase), age(ns, now)] })
}

export const configMapPrinter: Printer = {
  columns: [
    nameColumn,
    column("Data", "string", "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process."),
    ageColumn
  ],
  row: (cm, now) => ({ cells: [cm.metadata.name ?? "", Object.keys(rec(cm.data)).length + Object.keys(rec(cm.binaryData)).length, age(cm, now)] })
}

const containerCells = (containers: ReadonlyArray<unknown>): [string, string] => [
  containers.map((c) => str(rec(c).name)).join(","),
  containers.map((c) => str(rec(c).image)).join(",")
]

export const deploymentPrinter: Printer = {
  columns: [
    nameColumn,
    column("Ready", "string", "Number of the pod with ready state"),
    column("Up-to-date", "string", "Total number of non-terminated pods targeted by this deployment that have the desired template spec."),
    column("Available", "string", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."),
    ageColumn,
    column("Containers", "string", "Names of each container in the template.", { priority: 1 }),
    column("Images", "string", "Images referenced by each container in the template.", { priority: 1 }),
    column("Selector", "string", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.", { priority: 1 })
  ],
  row: (d, now) => {
    const spec = rec(d.spec)
    const status = rec(d.status)
    const [names, images] = containerCells(arr(rec(rec(spec.template).spec).containers))
    return {
      cells: [d.metadata.name ?? "", `${num(status.readyReplicas)}/${num(spec.replicas)}`, num(status.updatedReplicas), num(status.availableReplicas), age(d, now), names, images, formatSelector(spec.selector)]
    }
  }
}

/** `printReplicaSet` (upstream `pkg/printers/internalversion/printers.go`). */
export const replicaSetPrinter: Printer = {
  columns: [
    nameColumn,
    column("Desired", "integer", "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller"),
    column("Current", "integer", "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller"),
    column("Ready", "integer", "The number of ready replicas for this replica set."),
    ageColumn,
    column("Containers", "string", "Names of each container in the template.", { priority: 1 }),
    column("Images", "string", "Images referenced by each container in the template.", { priority: 1 }),
    column("Selector", "string", "Selector is a label query over pods that should match the replica count. Label keys and values that must match in order to be controlled by this replica set. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", { priority: 1 })
  ],
  row: (rs, now) => {
    const spec = rec(rs.spec)
    const status = rec(rs.status)
    const [names, images] = containerCells(arr(rec(rec(spec.template).spec).containers))
    return { cells: [rs.metadata.name ?? "", num(spec.replicas), num(status.replicas), num(status.readyReplicas), age(rs, now), names, images, formatSelector(spec.selector)] }
  }
}

export const leasePrinter: Printer = {
  columns: [nameColumn, column("Holder", "string", "holderIdentity contains the identity of the holder of a current lease."), ageColumn],
  row: (lease, now) => ({ cells: [lease.metadata.name ?? "", str(rec(lease.spec).holderIdentity), age(lease, now)] })
}
