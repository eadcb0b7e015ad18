/** What a kind's printer gives a Table: its columns, and the cells (and row conditions) of one object. */
import type { KObject } from "../Object.js"
import type { ColumnDefinition } from "./Columns.js"

export interface RowCondition {
  readonly type: string
  readonly status: string
  readonly reason: string
  readonly message: string
}

export interface PrintedRow {
  readonly cells: ReadonlyArray<unknown>
  readonly conditions?: ReadonlyArray<RowCondition>
}

export interface Printer {
  readonly columns: ReadonlyArray<ColumnDefinition>
  /** Every column's cell, the priority-1 (`-o wide`) ones included, as the server prints them; `now` in ms. */
  readonly row: (obj: KObject, now: number) => PrintedRow
}

/** Plain-object reads of schemaless fields. */
export const rec = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {})
export const arr = (v: unknown): ReadonlyArray<unknown> => (Array.isArray(v) ? v : [])
export const str = (v: unknown): string => (typeof v === "string" ? v : "")
export const num = (v: unknown): number => (typeof v === "number" ? v : 0)
