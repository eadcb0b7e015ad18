/** The baseline of the GET benchmark: a bare node:http server answering every request with the given bytes. */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

const body = Buffer.from(process.argv[2] ?? "", "base64")
const server = http.createServer((_req, res) => {
  res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-cache, private", "Content-Length": body.length })
  res.end(body)
})
server.listen(0, "127.0.0.1", () => console.log(`bare server listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`))
