/**
 * The hot path's writer: a gateway answer straight to node:http (JSON bytes as they are, streams
 * as server-sent events with backpressure), and whatever failed as Edge.failureOf answers it.
 */
import { GatewayError, type GatewayResponse } from "@switchyard/core"
import { Cause, Effect, Stream } from "effect"
import type { ServerResponse } from "node:http"
import * as AccessLine from "./AccessLine.ts"
import * as Edge from "./Edge.ts"
import * as RequestRecord from "./RequestRecord.ts"
import * as SseBody from "./SseBody.ts"

/** Answers however the handler failed (see Edge.failureOf), before or during a stream. */
export const writeCause = (
  response: ServerResponse,
  cause: Cause.Cause<GatewayError.GatewayError>,
  access: AccessLine.Details
): Effect.Effect<void> =>
  Effect.map(Edge.failureOf(cause, access.traceId), (failure) => {
    AccessLine.noteAnswer(access, failure.headers)
    answerOrCut(response, failure)
  })

const stopped = new GatewayError.Unavailable({
  message: "the gateway is shutting down and stopped before this answer was complete"
})

/**
 * The handler was interrupted: by the client leaving (nothing to write), or by the shutdown at
 * the end of its grace period, when the client still learns the answer is incomplete.
 */
export const writeInterrupted = (response: ServerResponse, traceId: string): void => {
  if (!response.destroyed && !response.writableEnded) answerOrCut(response, Edge.answerOf(stopped, traceId))
}

/** Before the status line: the failure's own answer; during a stream: a last error event, no `[DONE]`. */
const answerOrCut = (response: ServerResponse, failure: Edge.Failure): void => {
  if (!response.headersSent) return Edge.writeNode(response, failure)
  if (!response.writableEnded) response.end(SseBody.failureEvent(failure))
}

/** Writes the answer, noting on `access` its usage and when a stream's first chunk went out. */
export const write = (
  response: ServerResponse,
  answer: GatewayResponse.GatewayResponse,
  access: AccessLine.Details
): Effect.Effect<void> => {
  const headers: Record<string, string | number> = { ...answer.headers, [Edge.TRACE_HEADER]: access.traceId }
  if (answer._tag === "Json") {
    return Effect.sync(() => {
      const body = answer.body()
      AccessLine.noteUsage(access, body)
      AccessLine.noteResponseModel(access, body)
      if (access.bodies !== undefined) access.bodies.response = answer.body()
      Edge.writeJson(response, answer.status, headers, answer.text())
    })
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
  const noted = Stream.map(answer.chunks, (chunk) => {
    access.firstChunkAt ??= performance.now()
    // the usage comes in the last chunk, when the client asked for it (stream_options)
    AccessLine.noteUsage(access, chunk)
    if (access.bodies !== undefined) RequestRecord.keepChunk(access.bodies, chunk)
    AccessLine.noteResponseModel(access, chunk)
    return chunk
  })
  return SseBody.encode(noted, access.traceId).pipe(
    Stream.runForEach((bytes) => writeChunk(response, bytes)),
    Effect.andThen(Effect.sync(() => response.end()))
  )
}

/** Writes bytes of a stream, waiting for the socket to drain (or close) when its buffer is full. */
export const writeChunk = (response: ServerResponse, bytes: Uint8Array): Effect.Effect<void> =>
  response.write(bytes) ? Effect.void : Effect.callback<void>((resume) => {
    const done = () => {
      response.off("drain", done)
      response.off("close", done)
      resume(Effect.void)
    }
    response.on("drain", done)
    response.on("close", done)
  })
