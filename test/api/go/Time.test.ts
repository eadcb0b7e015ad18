/** Go's time.Parse for metav1's two layouts (src/api/go/Time.ts), with its error texts. */
import { describe, expect, it } from "@effect/vitest"
import { instantToIso, parseGoTime } from "../../../src/api/go/Time.js"

describe("parseGoTime", () => {
  const err = (s: string, layout: "RFC3339" | "RFC3339Micro" = "RFC3339") => {
    const r = parseGoTime(s, layout)
    return "error" in r ? r.error : undefined
  }

  it("parses and normalises to UTC", () => {
    const t = parseGoTime("2023-05-01T14:00:00.123456+02:00", "RFC3339Micro")
    expect("error" in t ? t.error : instantToIso(t)).toBe("2023-05-01T12:00:00.123456000Z")
  })

  it("has Go's range and syntax messages", () => {
    expect(err("2023-13-01T00:00:00Z")).toBe('parsing time "2023-13-01T00:00:00Z": month out of range')
    expect(err("2023-02-29T00:00:00Z")).toBe('parsing time "2023-02-29T00:00:00Z": day out of range')
    expect(err("2024-02-29T00:00:00Z")).toBeUndefined()
    expect(err("2023-05-01T24:00:00Z")).toBe('parsing time "2023-05-01T24:00:00Z": hour out of range')
    expect(err("2023-05-01T12:00:00Zjunk")).toBe('parsing time "2023-05-01T12:00:00Zjunk": extra text: "junk"')
    expect(err("x")).toBe('parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"')
    expect(err("2023-5-01T00:00:00Z")).toBe(
      'parsing time "2023-5-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "5-01T00:00:00Z" as "01"'
    )
    expect(err("2023-05-01T12:00:00")).toBe(
      'parsing time "2023-05-01T12:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"'
    )
    expect(err("2023-05-01T12:00:00é")).toBe(
      'parsing time "2023-05-01T12:00:00\\xc3\\xa9" as "2006-01-02T15:04:05Z07:00": cannot parse "\\xc3\\xa9" as "Z07:00"'
    )
  })
})
