/** The server half shared by FakeGemini and FakeVertex: recording, a behaviour queue, closing. */
import { createServer, type ServerResponse } from "node:http"
import { addressOf } from "../IncomingRequest.ts"
import type { GoogleBehaviour } from "./GeminiAnswer.ts"
import { readRequest, type RecordedRequest } from "./GoogleHttp.ts"

export interface Turn {
  readonly request: RecordedRequest
  readonly response: ServerResponse
  /** Takes the behaviour for this request (queue first, then the default). */
  readonly behaviour: () => GoogleBehaviour
  /** A number unique to this request, for response ids. */
  readonly sequence: number
  /** Aborts when the client goes away or the fake closes. */
  readonly signal: AbortSignal
}

export interface GoogleFakeServer {
  readonly port: number
  readonly requests: ReadonlyArray<RecordedRequest>
  readonly enqueue: (behaviour: GoogleBehaviour) => void
  readonly setDefault: (behaviour: GoogleBehaviour) => void
  readonly reset: () => void
  readonly close: () => Promise<void>
}

export const startGoogleServer = async (
  route: (turn: Turn) => Promise<void> | void,
  initial: GoogleBehaviour
): Promise<GoogleFakeServer> => {
  const requests: Array<RecordedRequest> = []
  const queue: Array<GoogleBehaviour> = []
  let defaultBehaviour = initial
  let sequence = 0
  const closing = new AbortController()
  const server = createServer((incoming, response) => {
    const exchangeClosed = new AbortController()
    response.once("close", () => exchangeClosed.abort())
    readRequest(incoming)
      .then((request) => {
        requests.push(request)
        sequence += 1
        return route({
          request,
          response,
          behaviour: () => queue.shift() ?? defaultBehaviour,
          sequence,
          signal: AbortSignal.any([closing.signal, exchangeClosed.signal])
        })
      })
      .catch(() => response.destroy())
  })
  server.keepAliveTimeout = 65_000
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  return {
    port: addressOf(server.address()).port,
    requests,
    enqueue: (behaviour) => void queue.push(behaviour),
    setDefault: (behaviour) => {
      defaultBehaviour = behaviour
    },
    reset: () => {
      requests.length = 0
      queue.length = 0
      defaultBehaviour = initial
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort()
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}
