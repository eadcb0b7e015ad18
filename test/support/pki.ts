/** Test certificates made with openssl: a CA, a server certificate for 127.0.0.1, client certificates by name. */
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"

export interface Pki {
  readonly ca: string
  readonly serverCert: string
  readonly serverKey: string
  /** `clients[cn]`: the certificate and key of a client certificate with that common name. */
  readonly clients: Readonly<Record<string, { readonly cert: string; readonly key: string }>>
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate per name (CN; O from `groups`), in `out`. */
export const makePki = (out: string, clients: ReadonlyArray<{ readonly cn: string; readonly groups?: ReadonlyArray<string> }> = [{ cn: "alice" }]): Pki => {
  mkdirSync(out, { recursive: true })
  const ssl = (...args: Array<string>) => execFileSync("openssl", args, { cwd: out, stdio: "pipe" })
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
  ssl("req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=clustersim-test-ca",
    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
  writeFileSync(path.join(out, "server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
  writeFileSync(path.join(out, "client.ext"), "extendedKeyUsage=clientAuth\n")
  const issue = (name: string, subject: string, ext: string) => {
    ssl("req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject)
    ssl("x509", "-req", "-in", `${name}.csr`, "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", `${name}.crt`, "-days", "2", "-extfile", ext)
  }
  const read = (f: string) => readFileSync(path.join(out, f), "utf8")
  issue("server", "/CN=127.0.0.1", "server.ext")
  const issued: Record<string, { cert: string; key: string }> = {}
  for (const c of clients) {
    const name = c.cn === "alice" && clients.length === 1 ? "client" : `client-${c.cn.replace(/[^a-z0-9-]/gi, "_")}`
    issue(name, `/CN=${c.cn}${(c.groups ?? []).map((g) => `/O=${g}`).join("")}`, "client.ext")
    issued[c.cn] = { cert: read(`${name}.crt`), key: read(`${name}.key`) }
  }
  return { ca: read("ca.crt"), serverCert: read("server.crt"), serverKey: read("server.key"), clients: issued }
}
