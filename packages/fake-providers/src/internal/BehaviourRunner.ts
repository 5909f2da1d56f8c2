import type { ServerResponse } from "node:http"
import { setTimeout as sleep } from "node:timers/promises"
import type { Behaviour } from "../Behaviour.ts"
import type { ReplyIdentity } from "./ChatCompletionReply.ts"
import { chatStreamEvents, endpointAnswer } from "./EndpointAnswer.ts"

/** One request being answered. `signal` aborts when the client goes away or the fake closes. */
export interface Exchange {
  readonly method: string
  readonly path: string
  readonly body: unknown
  readonly response: ServerResponse
  readonly identity: ReplyIdentity
  readonly chunksWrittenAt: Array<number>
  readonly signal: AbortSignal
}

export const runBehaviour = async (behaviour: Behaviour, exchange: Exchange): Promise<void> => {
  switch (behaviour._tag) {
    case "Reply":
      return reply(exchange)
    case "Json":
      return sendBody(exchange.response, behaviour.status, behaviour.body, behaviour.headers)
    case "Stall":
      // Answering nothing is the behaviour; the socket is freed when the client or the fake closes it.
      return
    case "Delay":
      if (await sleepUnlessAborted(behaviour.ms, exchange.signal)) await runBehaviour(behaviour.inner, exchange)
      return
    case "ResetConnection":
      exchange.response.socket?.destroy()
      return
    case "CutStream":
      return cutStream(exchange, behaviour.afterChunks)
    case "SlowStream":
      return writeEvents(exchange, chatStreamEvents(exchange.body, exchange.identity), behaviour.chunkDelayMs)
  }
}

const reply = async (exchange: Exchange): Promise<void> => {
  const answer = endpointAnswer(exchange.method, exchange.path, exchange.body, exchange.identity)
  if (answer._tag === "Body") return sendBody(exchange.response, answer.status, answer.body, {})
  return writeEvents(exchange, answer.events, 0)
}

const sendBody = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>>
): void => {
  const isText = typeof body === "string"
  const text = isText ? body : JSON.stringify(body)
  response.writeHead(status, {
    "content-type": isText ? "text/plain; charset=utf-8" : "application/json",
    "content-length": Buffer.byteLength(text),
    ...lowerCaseKeys(headers)
  })
  response.end(text)
}

const lowerCaseKeys = (headers: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))

const sseHeaders = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "connection": "keep-alive"
}

/** Writes each SSE event as its own write, `gapMs` apart, recording when each was written. */
const writeEvents = async (exchange: Exchange, events: ReadonlyArray<string>, gapMs: number): Promise<void> => {
  const { response } = exchange
  response.writeHead(200, sseHeaders)
  response.flushHeaders()
  for (const [index, event] of events.entries()) {
    if (index > 0 && gapMs > 0 && !(await sleepUnlessAborted(gapMs, exchange.signal))) return
    response.write(event)
    exchange.chunksWrittenAt.push(Date.now())
  }
  response.end()
}

const cutStream = (exchange: Exchange, afterChunks: number): void => {
  const { response } = exchange
  response.writeHead(200, sseHeaders)
  response.flushHeaders()
  for (const event of chatStreamEvents(exchange.body, exchange.identity).slice(0, afterChunks)) {
    response.write(event)
    exchange.chunksWrittenAt.push(Date.now())
  }
  // end() flushes what was written, without the chunked terminator, so the client sees a cut stream.
  const socket = response.socket
  socket?.end(() => socket.destroy())
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
const sleepUnlessAborted = async (ms: number, signal: AbortSignal): Promise<boolean> => {
  try {
    await sleep(ms, undefined, { signal })
    return true
  } catch {
    return false
  }
}
