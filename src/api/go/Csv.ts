/** Go's `encoding/csv` reader for one record, as pflag reads list values, with its error texts. */
import { Either } from "effect"

/**
 * One record of Go's `encoding/csv` reader (comma separator, quotes per RFC 4180), as pflag reads
 * list values. Empty text is an empty list.
 */
export const readCsvRecord = (text: string): Either.Either<ReadonlyArray<string>, string> => {
  if (text === "") return Either.right([])
  const line = text.split("\n")[0]!.replace(/\r$/, "")
  const fields: Array<string> = []
  let i = 0
  for (;;) {
    if (line[i] === '"') {
      let value = ""
      let j = i + 1
      for (;;) {
        if (j >= line.length) return Either.left(`parse error on line 1, column ${j + 1}: extraneous or missing " in quoted-field`)
        if (line[j] === '"') {
          if (line[j + 1] === '"') (value += '"'), (j += 2)
          else break
        } else (value += line[j]), j++
      }
      j++
      if (j < line.length && line[j] !== ",") {
        return Either.left(`parse error on line 1, column ${j + 1}: extraneous or missing " in quoted-field`)
      }
      fields.push(value)
      if (j >= line.length) return Either.right(fields)
      i = j + 1
    } else {
      const end = line.indexOf(",", i)
      const value = end < 0 ? line.slice(i) : line.slice(i, end)
      const quote = value.indexOf('"')
      if (quote >= 0) return Either.left(`parse error on line 1, column ${i + quote + 1}: bare " in non-quoted-field`)
      fields.push(value)
      if (end < 0) return Either.right(fields)
      i = end + 1
    }
  }
}
