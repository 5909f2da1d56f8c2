import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * An OTLP/HTTP collector stand-in for `--otlp`: accepts every export (traces, any encoding),
 * reads and discards it, answers 200. In the bench's own process: it receives one POST per batch
 * of spans, a few per second.
 */
export const startOtlpSink = async (): Promise<{ readonly url: string; readonly exports: () => number }> => {
  let exports = 0
  const server = createServer((request, response) => {
    request.resume()
    request.on("end", () => {
      exports++
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  server.unref()
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports: () => exports }
}
