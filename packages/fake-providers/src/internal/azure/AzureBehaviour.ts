/**
 * Runs a behaviour for the fake Azure: the reply and the stream behaviours use Azure's answers
 * for the route; the rest (fixed JSON, stalls, resets) behave as they do for the OpenAI fake.
 */
import { setTimeout as sleep } from "node:timers/promises"
import type { Behaviour } from "../../Behaviour.ts"
import { type Exchange, runBehaviour } from "../BehaviourRunner.ts"
import { answer, streamEvents } from "./AzureAnswer.ts"
import type { AzureRoute } from "./AzureRequestCheck.ts"

const sseHeaders = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "connection": "keep-alive"
}

/** `route` is undefined for a refused request, which only ever runs a fixed JSON behaviour. */
export const runAzureBehaviour = async (
  behaviour: Behaviour,
  route: AzureRoute | undefined,
  exchange: Exchange
): Promise<void> => {
  if (route === undefined) return runBehaviour(behaviour, exchange)
  switch (behaviour._tag) {
    case "Reply": {
      const reply = answer(route, exchange.body, exchange.identity)
      if (reply._tag === "Events") return writeEvents(exchange, reply.events, 0)
      return runBehaviour({ _tag: "Json", status: 200, body: reply.body, headers: {} }, exchange)
    }
    case "Delay":
      if (await sleepUnlessAborted(behaviour.ms, exchange.signal)) {
        await runAzureBehaviour(behaviour.inner, route, exchange)
      }
      return
    case "CutStream":
      return cutStream(exchange, streamEvents(route, exchange.body, exchange.identity).slice(0, behaviour.afterChunks))
    case "SlowStream":
      return writeEvents(exchange, streamEvents(route, exchange.body, exchange.identity), behaviour.chunkDelayMs)
    default:
      return runBehaviour(behaviour, exchange)
  }
}

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

const cutStream = (exchange: Exchange, events: ReadonlyArray<string>): void => {
  const { response } = exchange
  response.writeHead(200, sseHeaders)
  response.flushHeaders()
  for (const event of events) {
    response.write(event)
    exchange.chunksWrittenAt.push(Date.now())
  }
  // ends the socket without the chunked terminator, so the client sees a cut stream
  const socket = response.socket
  socket?.end(() => socket.destroy())
}

const sleepUnlessAborted = async (ms: number, signal: AbortSignal): Promise<boolean> => {
  try {
    await sleep(ms, undefined, { signal })
    return true
  } catch {
    return false
  }
}
