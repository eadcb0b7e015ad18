/**
 * Where `JSON.parse` stopped, as a line and column (1-based, as the scenario loader names a YAML error's place,
 * app/scenario/load.ts). V8 names a character offset (`Unterminated string in JSON at position 5000`), which no
 * editor goes to; an unexpected token it shows in up to 10 characters of context each side instead
 * (`Unexpected token 'x', ..."1,1,1,1,1,x,1,1,1,1,"... is not valid JSON`); `Unexpected end of JSON input` is at the end.
 */
export interface JsonSyntaxPlace {
  readonly line: number
  readonly column: number
  /** V8's message without its position or context: `Unterminated string in JSON`, `Unexpected token 'x'`. */
  readonly message: string
}

const positionPattern = / at position (\d+)(?: \(line \d+ column \d+\))?/
// V8's JsonParser::ReportUnexpectedToken: the token with kMaxContextCharacters (10) of the text either side, "..."
// where the text goes on
const unexpectedTokenPattern = /^(Unexpected token '(.)'), (\.\.\.)?"(.*)"(\.\.\.)? is not valid JSON$/su
const contextCharacters = 10

const offsetOf = (text: string, message: string): { readonly offset: number; readonly message: string } => {
  const position = positionPattern.exec(message)
  if (position !== null) return { offset: Number(position[1]), message: message.replace(positionPattern, "") }
  const token = unexpectedTokenPattern.exec(message)
  if (token !== null) {
    const [, words, character, cutBefore, context, cutAfter] = token
    const offset = cutBefore ? text.indexOf(context!) + contextCharacters : cutAfter ? context!.length - contextCharacters - 1 : text.indexOf(character!)
    return { offset, message: words! }
  }
  return { offset: text.length, message }
}

export const jsonSyntaxPlace = (text: string, error: SyntaxError): JsonSyntaxPlace => {
  const found = offsetOf(text, error.message)
  const offset = Math.max(0, Math.min(found.offset, text.length))
  const before = text.slice(0, offset)
  return { line: before.split("\n").length, column: offset - (before.lastIndexOf("\n") + 1) + 1, message: found.message }
}
