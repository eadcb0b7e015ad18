/**
 * Go's `%q` / `strconv.Quote` for the texts the API and the configuration checks print (names, values, flag
 * arguments). For printable text JSON's escaping agrees with Go's, which is all these texts hold.
 */
export const goQuote = (s: string): string => JSON.stringify(s)
