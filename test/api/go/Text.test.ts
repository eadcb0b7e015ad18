/** Go's `encoding/csv` record reading (src/api/go/Csv.ts). */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { readCsvRecord } from "../../../src/api/go/Csv.js"

describe("readCsvRecord", () => {
  it("splits on commas, honours quotes, reports bare quotes", () => {
    expect(readCsvRecord("")).toStrictEqual(Either.right([]))
    expect(readCsvRecord('a,"b,c",d')).toStrictEqual(Either.right(["a", "b,c", "d"]))
    expect(readCsvRecord('"a""b"')).toStrictEqual(Either.right(['a"b']))
    expect(readCsvRecord('a"b')).toStrictEqual(Either.left('parse error on line 1, column 2: bare " in non-quoted-field'))
    expect(readCsvRecord('"ab')).toStrictEqual(Either.left('parse error on line 1, column 4: extraneous or missing " in quoted-field'))
  })
})
