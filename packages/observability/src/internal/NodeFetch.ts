/**
 * `fetch` for the span exporter's POSTs, on node's own `http`/`https` with a keep-alive agent.
 *
 * Why not the global fetch (undici): it copies a `Uint8Array` body twice (its `Request` clones it,
 * then its web stream clones each chunk), and those copies were the largest frames of an export in
 * CPU profiles; with node's client tracing cost a chat request about 20 µs less CPU (README,
 * "Traces"). Here the body is written to the socket as it is.
 */
import * as http from "node:http"
import * as https from "node:https"

const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 4 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 4 })
}

const headersOf = (init: RequestInit | undefined): Record<string, string> =>
  init?.headers === undefined ? {} : Object.fromEntries(new Headers(init.headers))

/** A POST (or any bodied request) through node's client, answered as a web `Response`. */
export const nodeFetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
  new Promise((resolve, reject) => {
    const url = new URL(input instanceof Request ? input.url : input)
    const protocol = url.protocol === "https:" ? "https:" : "http:"
    const body = init?.body
    const signal = init?.signal ?? undefined
    if (signal?.aborted) return reject(signal.reason)
    const request = (protocol === "https:" ? https : http).request(url, {
      method: init?.method ?? "GET",
      headers: headersOf(init),
      agent: agents[protocol]
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("error", reject)
      response.on("end", () => {
        const headers = new Headers()
        for (const [name, value] of Object.entries(response.headers)) {
          if (typeof value === "string") headers.set(name, value)
          else if (Array.isArray(value)) { for (const item of value) headers.append(name, item) }
        }
        const status = response.statusCode ?? 502
        // a web Response refuses a body on 204, 205 and 304
        const empty = status === 204 || status === 205 || status === 304
        resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers }))
      })
    })
    const abort = () => request.destroy(signal?.reason instanceof Error ? signal.reason : new Error("aborted"))
    signal?.addEventListener("abort", abort, { once: true })
    request.on("close", () => signal?.removeEventListener("abort", abort))
    request.on("error", reject)
    if (typeof body === "string" || body instanceof Uint8Array) request.end(body)
    else if (body === undefined || body === null) request.end()
    else reject(new TypeError("nodeFetch sends string and Uint8Array bodies only"))
  })
