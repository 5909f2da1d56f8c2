/** Writing answers of the fake Anthropic API: JSON bodies, SSE events, cut streams. */
import type { ServerResponse } from "node:http"
import { setTimeout as sleep } from "node:timers/promises"

export const sendJson = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {}
): void => {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  response.writeHead(status, {
    "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json",
    "content-length": Buffer.byteLength(text),
    ...Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))
  })
  response.end(text)
}

/** Anthropic's error shape: `{ type: "error", error: { type, message } }`. */
export const errorBody = (type: string, message: string) => ({ type: "error", error: { type, message } })

export interface EventWriting {
  readonly response: ServerResponse
  readonly signal: AbortSignal
  readonly writtenAt: Array<number>
  readonly gapMs: number
  /** Destroys the socket after this many events, without ending the stream. */
  readonly cutAfter?: number | undefined
}

/** Writes each event as its own write, recording when; a cut ends the socket mid-stream. */
export const writeEvents = async (events: ReadonlyArray<string>, writing: EventWriting): Promise<void> => {
  const { response } = writing
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" })
  response.flushHeaders()
  const sent = writing.cutAfter === undefined ? events : events.slice(0, writing.cutAfter)
  for (const [index, event] of sent.entries()) {
    if (index > 0 && writing.gapMs > 0 && !(await sleepUnlessAborted(writing.gapMs, writing.signal))) return
    response.write(event)
    writing.writtenAt.push(Date.now())
  }
  if (writing.cutAfter === undefined) return void response.end()
  // end() flushes what was written, without the chunked terminator, so the client sees a cut stream
  const socket = response.socket
  socket?.end(() => socket.destroy())
}

export const sleepUnlessAborted = async (ms: number, signal: AbortSignal): Promise<boolean> => {
  try {
    await sleep(ms, undefined, { signal })
    return true
  } catch {
    return false
  }
}
