/**
 * The span thread (see SpanSender.ts): it writes each batch of span records it is sent as one
 * OTLP/JSON request body and POSTs it to the collector, answering `{ id, bytes, status,
 * retryAfter }` once the collector answered, or `{ id, bytes, error }` when it could not be
 * reached in time, with the batch's buffer handed back (transferred) either way. It retries
 * nothing: what to do next is the exporter's to decide, on the event loop. Only node builtins and
 * the span records' reader are imported: the thread loads no gateway module.
 */
import * as http from "node:http"
import * as https from "node:https"
import { parentPort, workerData } from "node:worker_threads"
import { gzipSync } from "node:zlib"
import { fragment, JsonBytes } from "./JsonBytes.ts"
import { writeSpans } from "./SpanJson.ts"

/** What the thread is started with; see `SpanSender.Options`. */
export interface ThreadOptions {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly compression: "gzip" | "none"
  readonly timeoutMs: number
  /** What every request body starts with, before its spans... */
  readonly head: string
  /** ...and ends with. */
  readonly tail: string
}

export interface Export {
  readonly id: number
  /** The batch's span records (`SpanRecords`), in the first `length` bytes. */
  readonly bytes: Uint8Array<ArrayBuffer>
  readonly length: number
}

export interface Answer {
  readonly id: number
  /** The batch's buffer, handed back; none from a thread that died holding it. */
  readonly bytes?: Uint8Array<ArrayBuffer>
  readonly status?: number
  /** The collector's `Retry-After`, when it sent one. */
  readonly retryAfter?: string
  /** Why no answer came: the connection failed, or the timeout passed. */
  readonly error?: string
}

/** Bodies smaller than this are sent as they are, as effect's `compressBody` does. */
const GZIP_MIN_BYTES = 1024

const options = workerData as ThreadOptions
const url = new URL(options.url)
const client = url.protocol === "https:" ? https : http
const agent = new client.Agent({ keepAlive: true, maxSockets: 1 })
const head = fragment(options.head)
const tail = fragment(options.tail)
// one export at a time: the body's buffer is written over by the next, grown to the largest batch
const out = new JsonBytes(64 * 1024)

const post = (body: Uint8Array): Promise<Omit<Answer, "id">> =>
  new Promise((resolve) => {
    const gzipped = options.compression === "gzip" && body.length >= GZIP_MIN_BYTES
    const sent = gzipped ? gzipSync(body) : body
    const request = client.request(url, {
      method: "POST",
      agent,
      headers: {
        ...options.headers,
        "content-type": "application/json",
        "content-length": String(sent.length),
        "user-agent": "switchyard-otlp-exporter",
        ...(gzipped ? { "content-encoding": "gzip" } : {})
      }
    }, (response) => {
      response.resume()
      response.on("error", (cause) => {
        clearTimeout(timer)
        resolve({ error: cause.message })
      })
      response.on("end", () => {
        clearTimeout(timer)
        const retryAfter = response.headers["retry-after"]
        resolve({ status: response.statusCode ?? 502, ...(retryAfter === undefined ? {} : { retryAfter }) })
      })
    })
    const timer = setTimeout(
      () => request.destroy(new Error(`the collector did not answer within ${options.timeoutMs} ms`)),
      options.timeoutMs
    )
    request.on("error", (cause) => {
      clearTimeout(timer)
      resolve({ error: cause.message })
    })
    request.end(sent)
  })

const body = (message: Export): Uint8Array => {
  out.length = 0
  out.raw(head)
  writeSpans(message.bytes, message.length, out)
  out.raw(tail)
  return out.written()
}

const answer = (message: Export, answer: Omit<Answer, "id" | "bytes">): void =>
  parentPort?.postMessage({ id: message.id, bytes: message.bytes, ...answer } satisfies Answer, [message.bytes.buffer])

parentPort?.on("message", (message: Export) => {
  let written: Uint8Array
  try {
    written = body(message)
  } catch (cause) {
    // records this thread cannot read are a fault of the sender: the batch fails, the thread goes on
    const why = cause instanceof Error ? cause.message : String(cause)
    return answer(message, { error: `the spans could not be written: ${why}` })
  }
  void post(written).then((answered) => answer(message, answered))
})
