/**
 * Reads of the stored object itself, for in-process readers that stand for an informer cache (a node agent reading the
 * pod it starts, `PodStarter.ts`): the answer of a GET without a resourceVersion, less the kind/apiVersion a GET adds.
 * A GET hands out a typed copy of each stored version, remembered in two weak maps (`TypeMeta.typedStored`), and every
 * pod start reads a version no one read before: the copy and its weak-map entries were ~3 % of the 5,000-node hour's
 * first 10 virtual minutes (docs/benchmarks.md "Current figures"). Only the server's own immediate view has it (no
 * identity wrapper: those authorize each GET, so their callers read through `get`).
 */
import type { Either } from "effect"
import type { KObject } from "../../src/api/Object.js"
import type { ResourceType } from "../../src/api/Resources.js"
import type { ApiError } from "../../src/api/Status.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"

export interface StoredRead {
  /** The latest `namespace`/`name` as stored, or the GET's 404: `get(resource, name, { namespace })` without type meta. */
  readonly storedNow: (resource: ResourceType, namespace: string | undefined, name: string) => Either.Either<KObject, ApiError>
}

export const hasStoredRead = <C extends ApiClientService>(client: C): client is C & StoredRead => "storedNow" in client
