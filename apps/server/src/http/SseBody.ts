/**
 * A stream of chunks as `text/event-stream` bytes: `data: <json>` per chunk, then `data: [DONE]`.
 * A failure after the first byte cannot change the status any more, so it becomes a last
 * `data: {"error": …}` event (the envelope Edge.failureOf answers, a defect logged there) and the
 * stream ends without `[DONE]`, never silently.
 */
import type { GatewayError, GatewayRequest } from "@switchyard/core"
import { Effect, Stream } from "effect"
import * as Edge from "./Edge.ts"

const encoder = new TextEncoder()
const DONE = encoder.encode("data: [DONE]\n\n")

/** The last event of a stream that ends with `failure`. */
export const failureEvent = (failure: Edge.Failure): Uint8Array => encoder.encode(`data: ${failure.body}\n\n`)

export const encode = (
  chunks: Stream.Stream<GatewayRequest.JsonObject, GatewayError.GatewayError>,
  traceId: string
): Stream.Stream<Uint8Array> =>
  chunks.pipe(
    Stream.map((chunk) => encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`)),
    Stream.concat(Stream.succeed(DONE)),
    // an interruption (the client left, or the server is stopping) stays one: the edge ends the response
    Stream.catchCause((cause) => Stream.fromEffect(Effect.map(Edge.failureOf(cause, traceId), failureEvent)))
  )
