import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { type Behaviour, reply } from "./Behaviour.ts"
import { runBehaviour } from "./internal/BehaviourRunner.ts"
import { addressOf, headerRecord, parseBody, readText } from "./internal/IncomingRequest.ts"

/** A request as the fake received it. */
export interface RecordedRequest {
  readonly method: string
  /** The request target as received, query string included. */
  readonly path: string
  /** Lower-case header names; repeated headers are joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body, or the raw text when it is not JSON ("" when there is none). */
  readonly body: unknown
  /** `Date.now()` when each SSE event of a streamed answer was written. */
  readonly chunksWrittenAt: ReadonlyArray<number>
}

export interface StartOptions {
  /** 0 (the default) picks any free port. */
  readonly port?: number | undefined
  /** Keep every request in `requests` (default true); benchmarks turn it off to keep memory flat. */
  readonly record?: boolean | undefined
}

/** A fake OpenAI API on 127.0.0.1. */
export interface FakeOpenAI {
  /** `http://127.0.0.1:PORT/v1` */
  readonly baseUrl: string
  readonly port: number
  readonly requests: ReadonlyArray<RecordedRequest>
  /** The behaviour for the next request not yet answered (first in, first out). */
  readonly enqueue: (behaviour: Behaviour) => void
  /** The behaviour when the queue is empty (initially `Behaviour.reply()`). */
  readonly setDefault: (behaviour: Behaviour) => void
  /** Clears the recorded requests and the queue, and restores the default behaviour. */
  readonly reset: () => void
  /** Stops listening and destroys every open connection, stalled ones included. */
  readonly close: () => Promise<void>
}

/**
 * Starts a fake OpenAI provider.
 *
 * @example
 * ```ts
 * import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
 *
 * const fake = await FakeOpenAI.start()
 * fake.enqueue(Behaviour.json(503, { error: { message: "overloaded" } }))
 * const response = await fetch(`${fake.baseUrl}/chat/completions`, { method: "POST", body: "{}" })
 * response.status // 503, and the next request gets the default reply
 * await fake.close()
 * ```
 */
export const start = async (options: StartOptions = {}): Promise<FakeOpenAI> => {
  const record = options.record ?? true
  const requests: Array<RecordedRequest> = []
  const queue: Array<Behaviour> = []
  let defaultBehaviour: Behaviour = reply()
  let replies = 0
  const closing = new AbortController()

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const exchangeClosed = new AbortController()
    response.once("close", () => exchangeClosed.abort())
    const text = await readText(request)
    const recorded = {
      method: request.method ?? "GET",
      path: request.url ?? "/",
      headers: headerRecord(request),
      body: parseBody(text),
      chunksWrittenAt: new Array<number>()
    }
    if (record) requests.push(recorded)
    const behaviour = queue.shift() ?? defaultBehaviour
    replies += 1
    await runBehaviour(behaviour, {
      method: recorded.method,
      path: recorded.path.split("?")[0] ?? "/",
      body: recorded.body,
      response,
      identity: { id: `chatcmpl-fake-${replies}`, created: Math.floor(Date.now() / 1000) },
      chunksWrittenAt: recorded.chunksWrittenAt,
      signal: AbortSignal.any([closing.signal, exchangeClosed.signal])
    })
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy())
  })
  // Longer than the clients' idle timeouts, so a pooled connection is never closed under a request.
  server.keepAliveTimeout = 65_000
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve())
  })
  const { port } = addressOf(server.address())

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    enqueue: (behaviour) => {
      queue.push(behaviour)
    },
    setDefault: (behaviour) => {
      defaultBehaviour = behaviour
    },
    reset: () => {
      requests.length = 0
      queue.length = 0
      defaultBehaviour = reply()
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort()
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}
