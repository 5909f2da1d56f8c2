/** The HTTP plumbing of the Google fakes: reading requests, writing JSON, Google errors and SSE. */
import type { IncomingMessage, ServerResponse } from "node:http"
import { headerRecord, readText } from "../IncomingRequest.ts"

/** A request as a Google fake received it. */
export interface RecordedRequest {
  readonly method: string
  /** The request target as received, query string included. */
  readonly path: string
  /** Lower-case header names; repeated headers are joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  /** The raw body text. */
  readonly text: string
  /** The parsed JSON body, or undefined when it is not JSON. */
  readonly body: unknown
}

export const readRequest = async (request: IncomingMessage): Promise<RecordedRequest> => {
  const text = await readText(request)
  return {
    method: request.method ?? "GET",
    path: request.url ?? "/",
    headers: headerRecord(request),
    text,
    body: parseJson(text)
  }
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export const sendJson = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {}
): void => {
  const text = typeof body === "string" ? body : JSON.stringify(body)
  response.writeHead(status, {
    "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json; charset=UTF-8",
    "content-length": Buffer.byteLength(text),
    ...headers
  })
  response.end(text)
}

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE"
}

/** Google's error shape (cloud.google.com/apis/design/errors): `{error: {code, message, status}}`. */
export const googleError = (code: number, message: string) => ({
  error: { code, message, status: STATUS_NAMES[code] ?? "UNKNOWN" }
})

export const sendGoogleError = (response: ServerResponse, code: number, message: string): void =>
  sendJson(response, code, googleError(code, message))

/**
 * Writes SSE events as Google does (`data: <json>` and a CRLF blank line, one write each); with
 * `cutAfter`, destroys the socket after that many events, without the chunked terminator.
 */
export const writeSse = (response: ServerResponse, events: ReadonlyArray<unknown>, cutAfter?: number): void => {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  response.flushHeaders()
  const sent = cutAfter === undefined ? events : events.slice(0, cutAfter)
  for (const event of sent) response.write(`data: ${JSON.stringify(event)}\r\n\r\n`)
  if (cutAfter === undefined) return void response.end()
  const socket = response.socket
  socket?.end(() => socket.destroy())
}
