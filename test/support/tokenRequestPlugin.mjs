#!/usr/bin/env node
// An exec credential plugin for tests, as `kubectl create token` wrapped in an ExecCredential: it asks the server
// (SERVER, with the CA and the client certificate of CA_FILE, CERT_FILE, KEY_FILE) for a TokenRequest token of the
// service account SA_NAMESPACE/SA_NAME and prints it with its expiry. Each run appends a line to RUNS_FILE.
import { appendFileSync, readFileSync } from "node:fs"
import * as https from "node:https"

const env = process.env
const body = JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600 } })
const url = new URL(`/api/v1/namespaces/${env.SA_NAMESPACE}/serviceaccounts/${env.SA_NAME}/token`, env.SERVER)
const req = https.request(
  url,
  {
    method: "POST",
    ca: readFileSync(env.CA_FILE),
    cert: readFileSync(env.CERT_FILE),
    key: readFileSync(env.KEY_FILE),
    headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
  },
  (res) => {
    let text = ""
    res.on("data", (c) => (text += c))
    res.on("end", () => {
      if (res.statusCode !== 201 && res.statusCode !== 200) {
        process.stderr.write(`TokenRequest: ${res.statusCode} ${text}\n`)
        process.exit(1)
      }
      const status = JSON.parse(text).status
      if (env.RUNS_FILE) appendFileSync(env.RUNS_FILE, "run\n")
      process.stdout.write(
        JSON.stringify({
          kind: "ExecCredential",
          apiVersion: "client.authentication.k8s.io/v1",
          status: { token: status.token, expirationTimestamp: status.expirationTimestamp }
        })
      )
    })
  }
)
req.on("error", (e) => {
  process.stderr.write(`TokenRequest: ${e.message}\n`)
  process.exit(1)
})
req.end(body)
