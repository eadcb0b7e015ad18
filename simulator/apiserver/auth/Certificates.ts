/**
 * A throwaway PKI for `serve --tls`: a CA, a serving certificate for the bound host, and an admin client
 * certificate (CN `clustersim-admin`, O `system:masters`, so it passes any authorization as upstream's
 * privileged group does). Node 20 cannot issue X.509 certificates, so `openssl` does the signing.
 * The files land in one directory with a kubeconfig next to them (docs/auth.md): a new directory is made 0700,
 * keys and the kubeconfig are 0600, and only the certificates, keys and kubeconfig stay.
 */
import { execFile } from "node:child_process"
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises"
import { isIP } from "node:net"
import * as path from "node:path"
import { Data, Effect } from "effect"
import { stringify } from "yaml"

export class CertificateError extends Data.TaggedError("CertificateError")<{ readonly message: string }> {}

/** The PEM files of a serving setup: what the server presents and which client CA it trusts. */
export interface ServingTls {
  readonly cert: string
  readonly key: string
  /** Client certificates signed by this CA authenticate (user = CN, groups = O); absent: none asked for. */
  readonly clientCa?: string
}

export interface GeneratedPki {
  readonly dir: string
  readonly caFile: string
  readonly certFile: string
  readonly keyFile: string
  readonly adminCertFile: string
  readonly adminKeyFile: string
  readonly tls: ServingTls
}

const openssl = (dir: string, args: ReadonlyArray<string>) =>
  Effect.async<void, CertificateError>((resume) => {
    execFile("openssl", args, { cwd: dir, timeout: 30_000 }, (error, _stdout, stderr) =>
      resume(error ? Effect.fail(new CertificateError({ message: `openssl ${args[0]} failed: ${stderr.trim() || error.message}` })) : Effect.void)
    )
  })

const ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

const fileIo = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: (e) => new CertificateError({ message: String(e) }) })

/** Private keys are the owner's alone, whatever openssl's own mode for them. */
const ownerOnly = (dir: string, file: string) => fileIo(() => chmod(path.join(dir, file), 0o600))

/**
 * A key and a certificate for `subject`, signed by the CA in `dir`, with the given X.509 extensions. The signing
 * request, the extensions and the CA's serial file are removed once the certificate exists: no one needs them.
 */
const signed = (dir: string, base: string, subject: string, extensions: string) =>
  Effect.gen(function* () {
    yield* openssl(dir, ["req", ...ecKey, "-keyout", `${base}.key`, "-out", `${base}.csr`, "-subj", subject])
    yield* ownerOnly(dir, `${base}.key`)
    yield* fileIo(() => writeFile(path.join(dir, `${base}.ext`), extensions, { mode: 0o600 }))
    yield* openssl(dir, ["x509", "-req", "-in", `${base}.csr`, "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "365", "-out", `${base}.crt`, "-extfile", `${base}.ext`])
    yield* fileIo(() => Promise.all([`${base}.csr`, `${base}.ext`, "ca.srl"].map((f) => rm(path.join(dir, f), { force: true }))))
  })

/** Subject alternative names for the bound host (an IP or a DNS name), plus the loopback names. */
export const subjectAltNames = (host: string): string => {
  const names = new Set(["DNS:localhost", "IP:127.0.0.1", isIP(host) ? `IP:${host}` : `DNS:${host}`])
  if (host === "0.0.0.0" || host === "::") names.delete(`IP:${host}`)
  return [...names].join(",")
}

/** Writes a CA, a serving certificate for `host` and an admin client certificate into `dir`. */
export const generatePki = (dir: string, host: string): Effect.Effect<GeneratedPki, CertificateError> =>
  Effect.gen(function* () {
    const io = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: (e) => new CertificateError({ message: `${dir}: ${String(e)}` }) })
    yield* io(() => mkdir(dir, { recursive: true, mode: 0o700 }))
    yield* openssl(dir, ["req", "-x509", ...ecKey, "-keyout", "ca.key", "-out", "ca.crt", "-days", "365", "-subj", "/CN=clustersim-ca"])
    yield* ownerOnly(dir, "ca.key")
    yield* signed(dir, "apiserver", "/CN=clustersim-apiserver", `subjectAltName=${subjectAltNames(host)}\nextendedKeyUsage=serverAuth\n`)
    yield* signed(dir, "admin", "/O=system:masters/CN=clustersim-admin", "extendedKeyUsage=clientAuth\n")
    const file = (name: string) => path.join(dir, name)
    const [ca, cert, key] = yield* Effect.all([io(() => readFile(file("ca.crt"), "utf8")), io(() => readFile(file("apiserver.crt"), "utf8")), io(() => readFile(file("apiserver.key"), "utf8"))])
    return {
      dir,
      caFile: file("ca.crt"),
      certFile: file("apiserver.crt"),
      keyFile: file("apiserver.key"),
      adminCertFile: file("admin.crt"),
      adminKeyFile: file("admin.key"),
      tls: { cert, key, clientCa: ca }
    }
  })

/** A kubeconfig for `server` trusting `caFile` and presenting the admin client certificate. */
export const kubeconfigText = (server: string, pki: Pick<GeneratedPki, "caFile" | "adminCertFile" | "adminKeyFile">): string =>
  stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "clustersim", cluster: { server, "certificate-authority": pki.caFile } }],
    users: [{ name: "clustersim-admin", user: { "client-certificate": pki.adminCertFile, "client-key": pki.adminKeyFile } }],
    contexts: [{ name: "clustersim", context: { cluster: "clustersim", user: "clustersim-admin" } }],
    "current-context": "clustersim"
  })

/** Writes the kubeconfig next to the certificates; its path. */
export const writeKubeconfig = (server: string, pki: GeneratedPki): Effect.Effect<string, CertificateError> => {
  const file = path.join(pki.dir, "kubeconfig")
  return Effect.tryPromise({ try: () => writeFile(file, kubeconfigText(server, pki), { mode: 0o600 }), catch: (e) => new CertificateError({ message: `${file}: ${String(e)}` }) }).pipe(
    Effect.as(file)
  )
}

/** A client certificate for `user` in `groups` (CN and O), signed by the PKI's CA: PEM certificate and key. */
export const issueClientCertificate = (pki: Pick<GeneratedPki, "dir">, user: string, groups: ReadonlyArray<string>): Effect.Effect<{ readonly cert: string; readonly key: string }, CertificateError> =>
  Effect.gen(function* () {
    const base = `client-${user.replace(/[^A-Za-z0-9_.-]/g, "_")}`
    const subject = [...groups.map((g) => `/O=${g}`), `/CN=${user}`].join("")
    yield* signed(pki.dir, base, subject, "extendedKeyUsage=clientAuth\n")
    const read = (ext: string) => Effect.tryPromise({ try: () => readFile(path.join(pki.dir, `${base}.${ext}`), "utf8"), catch: (e) => new CertificateError({ message: String(e) }) })
    return { cert: yield* read("crt"), key: yield* read("key") }
  })
