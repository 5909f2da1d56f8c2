/** How the Google fakes answer a well-formed Gemini request, behaviour by behaviour. */
import type { ServerResponse } from "node:http"
import { setTimeout as sleep } from "node:timers/promises"
import type { Behaviour } from "../../Behaviour.ts"
import { generateContentReply, streamReplyEvents } from "./GeminiReply.ts"
import { sendJson, writeSse } from "./GoogleHttp.ts"

/** SSE events of your own (each a `GenerateContentResponse`), optionally cut after `cutAfter` of them. */
export interface Events {
  readonly _tag: "Events"
  readonly events: ReadonlyArray<unknown>
  readonly cutAfter: number | undefined
}

export type GoogleBehaviour = Behaviour | Events

export interface GeminiExchange {
  readonly response: ServerResponse
  readonly body: unknown
  readonly model: string
  readonly stream: boolean
  readonly responseId: string
  readonly signal: AbortSignal
}

export const answerGemini = async (behaviour: GoogleBehaviour, exchange: GeminiExchange): Promise<void> => {
  const { response, body, model, responseId } = exchange
  switch (behaviour._tag) {
    case "Reply":
      return exchange.stream
        ? writeSse(response, streamReplyEvents(body, model, responseId))
        : sendJson(response, 200, generateContentReply(body, model, responseId))
    case "Json":
      return sendJson(response, behaviour.status, behaviour.body, behaviour.headers)
    case "Events":
      return writeSse(response, behaviour.events, behaviour.cutAfter)
    case "CutStream":
      return writeSse(response, streamReplyEvents(body, model, responseId), behaviour.afterChunks)
    case "SlowStream":
      return slowStream(exchange, behaviour.chunkDelayMs)
    case "ResetConnection":
      response.socket?.destroy()
      return
    case "Stall":
      return
    case "Delay":
      if (await sleepUnlessAborted(behaviour.ms, exchange.signal)) await answerGemini(behaviour.inner, exchange)
      return
  }
}

const slowStream = async (exchange: GeminiExchange, gapMs: number): Promise<void> => {
  const events = streamReplyEvents(exchange.body, exchange.model, exchange.responseId)
  exchange.response.writeHead(200, { "content-type": "text/event-stream" })
  for (const [index, event] of events.entries()) {
    if (index > 0 && !(await sleepUnlessAborted(gapMs, exchange.signal))) return
    exchange.response.write(`data: ${JSON.stringify(event)}\r\n\r\n`)
  }
  exchange.response.end()
}

const sleepUnlessAborted = async (ms: number, signal: AbortSignal): Promise<boolean> => {
  try {
    await sleep(ms, undefined, { signal })
    return true
  } catch {
    return false
  }
}
