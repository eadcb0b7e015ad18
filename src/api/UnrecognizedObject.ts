/**
 * The create and update handlers' answer to a body whose kind cannot be read (`transformDecodeError` in
 * apiserver `pkg/endpoints/handlers/rest.go`, the branch without a decoded kind): the decoder's error, then the
 * start of the body (`summarizeData`) so the client sees what it sent.
 */

/** `summarizeData(data, maxLength)`: the first bytes as text when the body starts with `{`, else as hex; `<empty>`. */
export const summarizeData = (data: Buffer | string, maxLength: number): string => {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data
  if (bytes.length === 0) return "<empty>"
  const head = bytes.subarray(0, maxLength)
  const text = bytes[0] === 0x7b ? head.toString("utf8") : head.toString("hex")
  return bytes.length > maxLength ? `${text} ...` : text
}

/** `the object provided is unrecognized (must be of type <kind>): <error> (<the body's first 30 bytes>)`. */
export const unrecognizedObject = (kind: string, error: string, body: Buffer | string): string =>
  `the object provided is unrecognized (must be of type ${kind}): ${error} (${summarizeData(body, 30)})`

/** The JSON serializer's error when the body's apiVersion and kind cannot be read (`SimpleMetaFactory.Interpret`). */
export const versionKindError = (jsonError: string): string => `couldn't get version/kind; json parse error: ${jsonError}`
