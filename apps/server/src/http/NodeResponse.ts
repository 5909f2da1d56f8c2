/**
 * Writes a gateway answer or error straight to node:http: JSON bytes as they are, streams as
 * server-sent events with backpressure.
 */
import { GatewayError, type GatewayResponse } from "@switchyard/core"
import { Cause, Effect, Option, Stream } from "effect"
import type { ServerResponse } from "node:http"
import * as SseBody from "./SseBody.ts"
import * as UnexpectedFailure from "./UnexpectedFailure.ts"

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
  const answer: Record<string, string | number> = { ...headers, [TRACE_HEADER]: traceId }
  // a client too slow to send its body loses the connection, which it would otherwise keep
  if (error instanceof GatewayError.ClientTimeout) answer.connection = "close"
  writeJson(response, status, answer, JSON.stringify(body))
}

/**
 * Answers however the handler failed: its typed error in the envelope; a defect as a 500 (logged
 * with its cause by UnexpectedFailure), so that no request is left without an answer.
 */
export const writeCause = (
  response: ServerResponse,
  cause: Cause.Cause<GatewayError.GatewayError>,
  traceId: string
): Effect.Effect<void> => {
  const error = Cause.findErrorOption(cause)
  if (Option.isSome(error)) return Effect.sync(() => answerOrCut(response, error.value, traceId))
  return Effect.map(UnexpectedFailure.report(cause, traceId), (internal) => answerOrCut(response, internal, traceId))
}

const stopped = new GatewayError.Unavailable({
  message: "the gateway is shutting down and stopped before this answer was complete"
})

/**
 * The handler was interrupted: by the client leaving (nothing to write), or by the shutdown at
 * the end of its grace period, when the client still learns the answer is incomplete.
 */
export const writeInterrupted = (response: ServerResponse, traceId: string): void => {
  if (!response.destroyed && !response.writableEnded) answerOrCut(response, stopped, traceId)
}

/** Before the status line: the error's own answer; during a stream: a last error event, no `[DONE]`. */
const answerOrCut = (response: ServerResponse, error: GatewayError.GatewayError, traceId: string): void => {
  if (!response.headersSent) return writeError(response, error, traceId)
  if (!response.writableEnded) response.end(SseBody.errorEvent(error))
}

export const write = (
  response: ServerResponse,
  answer: GatewayResponse.GatewayResponse,
  traceId: string
): Effect.Effect<void> => {
  const headers: Record<string, string | number> = { ...answer.headers, [TRACE_HEADER]: traceId }
  if (answer._tag === "Json") {
    return Effect.sync(() => writeJson(response, answer.status, headers, answer.text()))
  }
  response.writeHead(answer.status, {
    ...headers,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive"
  })
  // the status line goes out now: the client learns the stream has started before the first chunk
  response.flushHeaders()
  // ended here when complete; a stream interrupted half-way is ended by writeInterrupted
  return SseBody.encode(answer.chunks, traceId).pipe(
    Stream.runForEach((bytes) => writeChunk(response, bytes)),
    Effect.andThen(Effect.sync(() => response.end()))
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
