/**
 * The strict exposition reader (src/loadgen/Exposition.ts): it reads what a kube-apiserver and `clustersim serve`
 * answer — labelled histograms, escapes, timestamps, comments — and refuses anything else at its line.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { parseExposition } from "../../src/loadgen/Exposition.js"
import { ServerMetrics } from "../../simulator/apiserver/http/ServerMetrics.js"
import { defaultConfig, ServerState } from "../../simulator/apiserver/ServerState.js"

const all = () => true
const parsed = (text: string) => Either.getOrThrow(parseExposition(text, all))
const error = (text: string) => {
  const r = parseExposition(text, all)
  if (Either.isRight(r)) throw new Error("parsed")
  return r.left.message
}

describe("parseExposition", () => {
  it("reads a labelled histogram as kube-apiserver 1.26 writes it", () => {
    const text = [
      "# HELP apiserver_request_sli_duration_seconds [ALPHA] Response latency distribution",
      "# TYPE apiserver_request_sli_duration_seconds histogram",
      'apiserver_request_sli_duration_seconds_bucket{component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1",le="0.05"} 12',
      'apiserver_request_sli_duration_seconds_bucket{component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1",le="+Inf"} 13',
      'apiserver_request_sli_duration_seconds_sum{component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 0.75',
      'apiserver_request_sli_duration_seconds_count{component="apiserver",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 13',
      ""
    ].join("\n")
    const samples = parsed(text)
    expect(samples).toHaveLength(4)
    expect(samples[1]).toEqual({
      name: "apiserver_request_sli_duration_seconds_bucket",
      labels: { component: "apiserver", group: "", resource: "pods", scope: "namespace", subresource: "", verb: "LIST", version: "v1", le: "+Inf" },
      value: 13
    })
  })

  it("reads escapes, timestamps, special values, trailing commas, CRLF and # EOF", () => {
    const samples = parsed(
      'msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\"",} 1.458255915e9 1395066363000\r\nsomething_weird{problem="division by zero"} +Inf -3982045\nnan_metric NaN\nprom_client_nan Nan\n# EOF\nnot read at all\n'
    )
    expect(samples.map((s) => [s.name, s.labels, s.value])).toEqual([
      ["msdos_file_access_time_seconds", { path: "C:\\DIR\\FILE.TXT", error: 'Cannot find file:\n"FILE.TXT"' }, 1.458255915e9],
      ["something_weird", { problem: "division by zero" }, Infinity],
      ["nan_metric", {}, NaN],
      ["prom_client_nan", {}, NaN]
    ])
  })

  it("keeps only the families asked for", () => {
    const r = parseExposition("a 1\nb_bucket{le=\"1\"} 2\n", (n) => n.startsWith("b"))
    expect(Either.getOrThrow(r)).toEqual([{ name: "b_bucket", labels: { le: "1" }, value: 2 }])
  })

  it("reads clustersim serve's own exposition in full", async () => {
    const metrics = new ServerMetrics(new ServerState(defaultConfig, 0))
    const m = await metrics.exposition(false)
    const r = parseExposition(m.body, all)
    expect(Either.isRight(r)).toBe(true)
    expect(Either.getOrThrow(r).length).toBeGreaterThan(10)
  })

  it.each([
    ["\u0000\u0001garbage", 'malformed exposition at line 1: expected a metric name, got "\\u0000\\u0001garbage"'],
    ["ok 1\n{x} 2", 'malformed exposition at line 2: expected a metric name, got "{x} 2"'],
    ["a{b=c} 1", "malformed exposition at line 1: expected a quoted value for label b of a"],
    ['a{b="c} 1', "malformed exposition at line 1: unterminated value of label b of a"],
    ['a{b="\\t"} 1', 'malformed exposition at line 1: invalid escape "\\t" in label b of a'],
    ['a{b="1",b="2"} 1', "malformed exposition at line 1: label b given twice in a"],
    ["a one", 'malformed exposition at line 1: invalid value of a: "one"'],
    ["a 1 x", 'malformed exposition at line 1: invalid timestamp of a: "x"'],
    ["a 1 2 3", 'malformed exposition at line 1: unexpected text after the value of a: "3"'],
    ["a", "malformed exposition at line 1: expected a value after a"],
    ["<html><body>Login</body></html>", 'malformed exposition at line 1: expected a metric name, got "<html><body>Login</b"'],
    ["# TYPE a sometype", 'malformed exposition at line 1: unknown metric type of a: "sometype"']
  ])("refuses %j at its line", (text, message) => {
    expect(error(text)).toBe(message)
  })
})
