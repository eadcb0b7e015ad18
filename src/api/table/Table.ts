/**
 * The server-side Table (`meta/v1` and `v1beta1` `Table`; spec 000 "Table representation",
 * upstream `pkg/printers`): the kind's printer columns, one row per object with every cell (clients hide the
 * priority-1 ones unless `-o wide`), the row's object per `includeObject`, and the list's paging fields.
 * Pure: the caller gives the time the ages are computed at.
 */
import { Either } from "effect"
import type { KList, KObject, ListMeta } from "../Object.js"
import { badRequest, type ApiError } from "../Status.js"
import { column, creationTimestampDescription, nameDescription, type ColumnDefinition } from "./Columns.js"
import type { Printer, RowCondition } from "./Printer.js"
import { eventPrinter } from "./printers/EventPrinter.js"
import { nodePrinter } from "./printers/NodePrinter.js"
import { podPrinter } from "./printers/PodPrinter.js"
import { servicePrinter } from "./printers/ServicePrinter.js"
import { configMapPrinter, deploymentPrinter, leasePrinter, namespacePrinter, replicaSetPrinter } from "./printers/SimplePrinters.js"

export type IncludeObject = "None" | "Metadata" | "Object"

/** `includeObject`: empty or absent is `Metadata`, as upstream defaults it. */
export const parseIncludeObject = (value: string | null): Either.Either<IncludeObject, ApiError> => {
  if (value === null || value === "" || value === "Metadata") return Either.right("Metadata")
  if (value === "None" || value === "Object") return Either.right(value)
  return Either.left(
    badRequest(`Unable to convert to Table as requested: includeObject: Invalid value: "${value}": must be 'Metadata', 'Object', 'None', or empty`)
  )
}

const printers: ReadonlyMap<string, Printer> = new Map([
  ["Pod", podPrinter],
  ["Node", nodePrinter],
  ["Namespace", namespacePrinter],
  ["ConfigMap", configMapPrinter],
  ["Service", servicePrinter],
  ["Deployment", deploymentPrinter],
  ["ReplicaSet", replicaSetPrinter],
  ["Lease", leasePrinter],
  ["Event", eventPrinter]
])

/** The default convertor of kinds without printers (`pkg/registry/rest/table.go`): Name and Created At. */
const defaultPrinter: Printer = {
  columns: [column("Name", "string", nameDescription, { format: "name" }), column("Created At", "date", creationTimestampDescription)],
  row: (obj) => ({ cells: [obj.metadata.name ?? "", obj.metadata.creationTimestamp ?? null] })
}

export const printerOf = (kind: string): Printer => printers.get(kind) ?? defaultPrinter

export interface TableRow {
  readonly cells: ReadonlyArray<unknown>
  readonly conditions?: ReadonlyArray<RowCondition>
  readonly object?: unknown
}

export interface Table {
  readonly kind: "Table"
  readonly apiVersion: string
  readonly metadata: Partial<ListMeta>
  readonly columnDefinitions: ReadonlyArray<ColumnDefinition> | null
  readonly rows: ReadonlyArray<TableRow> | null
}

export interface TableOptions {
  /** The Table's apiVersion, `<g>/<v>` as the client asked (`meta.k8s.io/v1`, `meta.platform/v1beta1`). */
  readonly apiVersion: string
  readonly includeObject: IncludeObject
  /** Now, in ms: ages are relative to it. */
  readonly now: number
  /** False for the watch events after the first, which carry no column definitions. */
  readonly columns: boolean
  /** The object as the client's API shows it (a view of the stored object), for `includeObject=Object`. */
  readonly toWire?: ((obj: KObject) => KObject) | undefined
}

const rowObject = (obj: KObject, opts: TableOptions): unknown => {
  const wire = opts.toWire ? opts.toWire(obj) : obj
  if (opts.includeObject === "Object") return wire
  return { kind: "PartialObjectMetadata", apiVersion: opts.apiVersion, metadata: wire.metadata }
}

const rowsOf = (printer: Printer, objects: ReadonlyArray<KObject>, opts: TableOptions): Array<TableRow> =>
  objects.map((obj) => {
    const printed = printer.row(obj, opts.now)
    const row: { cells: ReadonlyArray<unknown>; conditions?: ReadonlyArray<RowCondition>; object?: unknown } = { cells: printed.cells }
    if (printed.conditions) row.conditions = printed.conditions
    if (opts.includeObject !== "None") row.object = rowObject(obj, opts)
    return row
  })

const table = (kind: string, objects: ReadonlyArray<KObject>, metadata: Partial<ListMeta>, opts: TableOptions): Table => {
  const printer = printerOf(kind)
  const rows = rowsOf(printer, objects, opts)
  return {
    kind: "Table",
    apiVersion: opts.apiVersion,
    metadata,
    columnDefinitions: opts.columns ? printer.columns : null,
    // The default convertor appends to a nil slice; printers make an empty one.
    rows: rows.length === 0 && printer === defaultPrinter ? null : rows
  }
}

/** A list as a Table: one row per item, the list's resourceVersion, continue and remainingItemCount. */
export const listTable = (kind: string, list: KList, opts: TableOptions): Table => {
  const { resourceVersion, continue: token, remainingItemCount } = list.metadata
  const metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number } = { resourceVersion }
  if (token) metadata.continue = token
  if (remainingItemCount !== undefined) metadata.remainingItemCount = remainingItemCount
  return table(kind, list.items, metadata, opts)
}

/** One object as a Table of one row, with the object's resourceVersion. */
export const objectTable = (kind: string, obj: KObject, opts: TableOptions): Table =>
  table(kind, [obj], { resourceVersion: obj.metadata.resourceVersion ?? "" }, opts)
