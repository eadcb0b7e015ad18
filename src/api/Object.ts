/** The object envelope shared by every kind (spec 000, "Common object envelope"). */

export interface OwnerReference {
  readonly apiVersion: string
  readonly kind: string
  readonly name: string
  readonly uid: string
  readonly controller?: boolean
  readonly blockOwnerDeletion?: boolean
}

export interface ObjectMeta {
  readonly name?: string
  readonly generateName?: string
  readonly namespace?: string
  readonly uid?: string
  readonly resourceVersion?: string
  readonly generation?: number
  readonly creationTimestamp?: string | null
  readonly deletionTimestamp?: string
  readonly deletionGracePeriodSeconds?: number
  readonly labels?: Readonly<Record<string, string>>
  readonly annotations?: Readonly<Record<string, string>>
  readonly finalizers?: ReadonlyArray<string>
  readonly ownerReferences?: ReadonlyArray<OwnerReference>
  readonly managedFields?: ReadonlyArray<unknown>
  readonly selfLink?: string
}

/** Any API object: typed metadata, schemaless beyond it. */
export interface KObject {
  readonly apiVersion?: string
  readonly kind?: string
  readonly metadata: ObjectMeta
  readonly [field: string]: unknown
}

export interface ListMeta {
  readonly resourceVersion: string
  readonly continue?: string
  readonly remainingItemCount?: number
}

export interface KList<T extends KObject = KObject> {
  readonly kind: string
  readonly apiVersion: string
  readonly metadata: ListMeta
  readonly items: ReadonlyArray<T>
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR"

export interface WatchEvent<T = KObject> {
  readonly type: WatchEventType
  readonly object: T
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)
