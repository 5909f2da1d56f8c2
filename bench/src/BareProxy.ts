/**
 * The baseline: a bare Node proxy that does the least a gateway must do. It reads the request body,
 * parses and re-serialises the JSON, forwards it over a keep-alive agent and pipes the answer back.
 *
 * Run: `node bench/src/BareProxy.ts --upstream http://127.0.0.1:PORT --port 0`
 */
import { Agent, createServer, type IncomingHttpHeaders, request as httpRequest, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { parseArgs } from "node:util"

export interface BareProxy {
  readonly url: string
  readonly close: () => Promise<void>
}

const hopByHop = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "host", "upgrade"])

const forwardedHeaders = (headers: IncomingHttpHeaders): Record<string, string | Array<string>> => {
  const kept: Record<string, string | Array<string>> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !hopByHop.has(name)) kept[name] = value
  }
  return kept
}

/** Starts the proxy on 127.0.0.1; every request goes to the same path on `upstream` (an origin URL). */
export const start = async (options: { readonly upstream: string; readonly port?: number }): Promise<BareProxy> => {
  const upstream = new URL(options.upstream)
  const agent = new Agent({ keepAlive: true, maxSockets: 1024, maxFreeSockets: 1024 })
  const server = createServer(async (incoming, outgoing) => {
    try {
      const chunks: Array<Buffer> = []
      for await (const chunk of incoming) chunks.push(Buffer.from(chunk))
      const body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString("utf8")))
      const forward = httpRequest({
        agent,
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...forwardedHeaders(incoming.headers), "content-length": Buffer.byteLength(body) }
      }, (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, forwardedHeaders(answer.headers))
        answer.pipe(outgoing)
      })
      forward.on("error", () => fail(outgoing))
      forward.end(body)
    } catch {
      fail(outgoing)
    }
  })
  server.keepAliveTimeout = 65_000
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve())
  })
  const { port } = tcpAddress(server.address())
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
        agent.destroy()
      })
  }
}

const tcpAddress = (address: string | AddressInfo | null): AddressInfo => {
  if (address === null || typeof address === "string") throw new Error("the proxy is not listening on TCP")
  return address
}

const fail = (outgoing: ServerResponse): void => {
  if (outgoing.headersSent) outgoing.destroy()
  else outgoing.writeHead(502, { "content-type": "application/json" }).end("{\"error\":{\"message\":\"bad gateway\"}}")
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { upstream: { type: "string" }, port: { type: "string", default: "0" } } })
  if (values.upstream === undefined) {
    console.error("usage: node bench/src/BareProxy.ts --upstream http://127.0.0.1:PORT [--port N]")
    process.exit(2)
  }
  const proxy = await start({ upstream: values.upstream, port: Number(values.port) })
  console.log(`listening ${proxy.url}`)
  const stop = () => {
    proxy.close().then(() => process.exit(0), () => process.exit(1))
  }
  process.once("SIGTERM", stop)
  process.once("SIGINT", stop)
}
