/**
 * Writes a gateway answer or error straight to node:http: JSON bytes as they are, streams as
 * server-sent events with backpressure.
 */
import { GatewayError, type GatewayResponse } from "@switchyard/core"
import { Effect, Stream } from "effect"
import type { ServerResponse } from "node:http"
import * as SseBody from "./SseBody.ts"

export const TRACE_HEADER = "x-gateway-trace-id"

/** Writes a JSON body; `headers` is the caller's own object and gains the content headers. */
export const writeJson = (
  response: ServerResponse,
  status: number,
  headers: Record<string, string | number>,
  body: Uint8Array | string
): void => {
  headers["content-type"] = "application/json"
  headers["content-length"] = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength
  response.writeHead(status, headers)
  response.end(body)
}

export const writeError = (response: ServerResponse, error: GatewayError.GatewayError, traceId: string): void => {
  const { body, headers, status } = GatewayError.toHttp(error)
  writeJson(response, status, { ...headers, [TRACE_HEADER]: traceId }, JSON.stringify(body))
}

export const write = (
  response: ServerResponse,
  answer: GatewayResponse.GatewayResponse,
  traceId: string
): Effect.Effect<void> => {
  const headers: Record<string, string | number> = { ...answer.headers, [TRACE_HEADER]: traceId }
  if (answer._tag === "Json") {
    return Effect.sync(() => writeJson(response, answer.status, headers, answer.raw ?? JSON.stringify(answer.body())))
  }
  response.writeHead(answer.status, {
    ...headers,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive"
  })
  // the status line goes out now: the client learns the stream has started before the first chunk
  response.flushHeaders()
  return SseBody.encode(answer.chunks).pipe(
    Stream.runForEach((bytes) => writeChunk(response, bytes)),
    Effect.ensuring(Effect.sync(() => response.end()))
  )
}

const writeChunk = (response: ServerResponse, bytes: Uint8Array): Effect.Effect<void> =>
  response.write(bytes) ? Effect.void : Effect.callback<void>((resume) => {
    const done = () => {
      response.off("drain", done)
      response.off("close", done)
      resume(Effect.void)
    }
    response.on("drain", done)
    response.on("close", done)
  })
