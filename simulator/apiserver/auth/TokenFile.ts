/**
 * The static token file of `--token-auth-file`, read as upstream's `tokenfile.NewCSV` reads it
 * (`k8s.io/apiserver/pkg/authentication/token/tokenfile/tokenfile.go`): CSV records `token,user,uid[,"g1,g2"]`,
 * any number of fields per record, at least three; an empty token is skipped; a repeated token keeps the last
 * record; the fourth field is split on commas into groups.
 */
import { Either } from "effect"
import { readCsvRecord } from "../../../src/api/go/Csv.js"
import type { UserInfo } from "./UserInfo.js"

export type TokenTable = ReadonlyMap<string, UserInfo>

/** The tokens of a token file's text; errors name the file and line. */
export const parseTokenFile = (file: string, text: string): Either.Either<TokenTable, string> => {
  const tokens = new Map<string, UserInfo>()
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, "")
    // Go's csv reader skips empty lines.
    if (line === "") continue
    const record = readCsvRecord(line)
    if (Either.isLeft(record)) return Either.left(`${file}:${i + 1}: ${record.left.replace("on line 1,", `on line ${i + 1},`)}`)
    const fields = record.right
    if (fields.length < 3) return Either.left(`token file '${file}' must have at least 3 columns (token, user name, user uid), found ${fields.length}`)
    const [token, name, uid, groups] = fields as [string, string, string, string | undefined]
    if (token === "") continue
    tokens.set(token, { name, uid, groups: groups === undefined ? [] : groups.split(",") })
  }
  return Either.right(tokens)
}
