// Writes src/api/protobuf/schema/*.ts: the messages clustersim serves, extracted from upstream's wire format.
//   node scripts/protobuf-schema.cjs src/api/protobuf/schema INCLUDE_DIR
// INCLUDE_DIR holds k8s.io/api/<group>/<version>/{generated.proto,*.go} and k8s.io/apimachinery/pkg/... as in the
// kubernetes/api and kubernetes/apimachinery repositories. Field numbers and types come from generated.proto; from
// types.go come the JSON name, `(inline)` (an embedded struct whose fields JSON flattens into the parent) and
// `(keep_zero)` (a scalar Go's JSON writes even when zero: a pointer, or a field without omitempty).
const pb = require("protobufjs")
const fs = require("fs"), path = require("path")
const inc = process.argv[3] ?? "/tmp/pbgen/inc"
const root = new pb.Root()
root.resolvePath = (origin, target) => target.startsWith("/") ? target : path.join(inc, target)
const files = ["k8s.io/api/core/v1/generated.proto","k8s.io/api/apps/v1/generated.proto","k8s.io/api/coordination/v1/generated.proto","k8s.io/api/events/v1/generated.proto","k8s.io/api/policy/v1/generated.proto","k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto","k8s.io/apimachinery/pkg/runtime/generated.proto"]
root.loadSync(files.map(f => path.join(inc, f)), { keepCase: true })
root.resolveAll()
const roots = [
 "k8s.io.api.core.v1.Pod","k8s.io.api.core.v1.PodList","k8s.io.api.core.v1.Node","k8s.io.api.core.v1.NodeList",
 "k8s.io.api.core.v1.Namespace","k8s.io.api.core.v1.NamespaceList","k8s.io.api.core.v1.ConfigMap","k8s.io.api.core.v1.ConfigMapList",
 "k8s.io.api.core.v1.Service","k8s.io.api.core.v1.ServiceList","k8s.io.api.core.v1.Event","k8s.io.api.core.v1.EventList","k8s.io.api.core.v1.Binding",
 "k8s.io.api.apps.v1.Deployment","k8s.io.api.apps.v1.DeploymentList",
 "k8s.io.api.coordination.v1.Lease","k8s.io.api.coordination.v1.LeaseList",
 "k8s.io.api.events.v1.Event","k8s.io.api.events.v1.EventList",
 "k8s.io.api.policy.v1.Eviction",
 "k8s.io.apimachinery.pkg.apis.meta.v1.Status","k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent","k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
 "k8s.io.apimachinery.pkg.runtime.Unknown"
]
const need = new Map()
const visit = (t) => { if (need.has(t.fullName)) return; need.set(t.fullName, t); for (const f of t.fieldsArray) if (f.resolvedType instanceof pb.Type) visit(f.resolvedType) }
for (const r of roots) visit(root.lookupType(r))
// Go field flags from types.go: struct -> protoName -> {pointer, omitempty, json}
const goFields = new Map()
const walk = (dir) => { for (const e of fs.readdirSync(dir, { withFileTypes: true })) { const p = path.join(dir, e.name); if (e.isDirectory()) walk(p); else if (p.endsWith(".go")) parseGo(p) } }
const pkgOf = (p) => path.dirname(path.relative(inc, p)).replace(/\//g, ".")
function parseGo(p) {
  const pkg = pkgOf(p)
  let cur
  for (const line of fs.readFileSync(p, "utf8").split("\n")) {
    let m = /^type (\w+) struct \{/.exec(line)
    if (m) { cur = new Map(); goFields.set(pkg + "." + m[1], cur); continue }
    if (/^\}/.test(line)) { cur = undefined; continue }
    if (!cur) continue
    m = /^\s+(?:\w+\s+)?(\S+)\s+`(.*)`/.exec(line)
    if (!m) continue
    const goType = m[1], tags = m[2]
    const jm = /json:"([^"]*)"/.exec(tags), pm = /protobuf:"([^"]*)"/.exec(tags)
    if (!jm || !pm) continue
    const json = jm[1], proto = pm[1]
    const nm = /name=([^,]+)/.exec(proto); const bare = goType.replace(/^\*/, "").replace(/^\w+\./, ""); const name = nm ? nm[1] : bare[0].toLowerCase() + bare.slice(1)
    const [jsonName, ...opts] = json.split(",")
    cur.set(name, { pointer: goType.startsWith("*"), omitempty: opts.includes("omitempty"), json: jsonName, goType })
  }
}
walk(inc)
const scalar = new Set(["string","bool","int32","int64","uint32","uint64","bytes","double","float","sint32","sint64","fixed32","fixed64"])
const byPkg = new Map()
const missing = []
for (const [full, t] of need) {
  const pkg = t.parent.fullName.slice(1)
  const flags = goFields.get(pkg + "." + t.name)
  const lines = []
  for (const f of [...t.fieldsArray].sort((a, b) => a.id - b.id)) {
    const g = flags?.get(f.name)
    if (!g) missing.push(full + "." + f.name)
    const type = f.resolvedType ? (f.resolvedType.parent === t.parent ? f.resolvedType.name : f.resolvedType.fullName) : f.type
    const opts = []
    if (g && g.json === "") opts.push("(inline) = true")
    else if (g && g.json !== f.name) opts.push(`json_name = "${g.json}"`)
    if (g && !f.repeated && !f.map && scalar.has(f.type) && (g.pointer || !g.omitempty)) opts.push("(keep_zero) = true")
    const o = opts.length ? ` [${opts.join(", ")}]` : ""
    if (f.map) lines.push(`  map<${f.keyType}, ${type}> ${f.name} = ${f.id}${o};`)
    else lines.push(`  ${f.repeated ? "repeated" : "optional"} ${type} ${f.name} = ${f.id}${o};`)
  }
  if (!byPkg.has(pkg)) byPkg.set(pkg, [])
  byPkg.get(pkg).push(`message ${t.name} {\n${lines.join("\n")}\n}`)
}
const outDir = process.argv[2]
const short = (pkg) => pkg.replace(/^k8s\.io\.api\./, "").replace(/^k8s\.io\.apimachinery\.pkg\.apis\./, "").replace(/^k8s\.io\.apimachinery\.pkg\.(api\.|util\.)?/, "")
const sources = { "core.v1": "k8s.io/api core/v1", "apps.v1": "k8s.io/api apps/v1", "coordination.v1": "k8s.io/api coordination/v1", "events.v1": "k8s.io/api events/v1", "policy.v1": "k8s.io/api policy/v1", "meta.v1": "k8s.io/apimachinery pkg/apis/meta/v1", "runtime": "k8s.io/apimachinery pkg/runtime", "intstr": "k8s.io/apimachinery pkg/util/intstr", "resource": "k8s.io/apimachinery pkg/api/resource" }
for (const [pkg, msgs] of byPkg) {
  const name = short(pkg)
  const text = `syntax = "proto2";\npackage ${pkg};\n\n${msgs.sort().join("\n\n")}\n`
  fs.writeFileSync(path.join(outDir, `${name}.ts`), `/**\n * The ${pkg} messages clustersim serves, in upstream's wire format (${sources[name]}: generated.proto for\n * field numbers and types, types.go for the JSON flags). Written by \`scripts/protobuf-schema.cjs\`; see\n * \`src/api/protobuf/Schema.ts\` for the options \`(keep_zero)\` and \`(inline)\`.\n */\nexport const proto = \`\n${text}\`\n`)
}
// Fields without a Go JSON tag: the hand-mapped wire types (Time, MicroTime, Quantity, IntOrString, FieldsV1, Unknown).
if (process.env.VERBOSE) console.error("no Go JSON flags:", missing)
