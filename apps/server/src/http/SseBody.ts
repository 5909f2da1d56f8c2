/**
 * A stream of chunks as `text/event-stream` bytes: `data: <json>` per chunk, then `data: [DONE]`.
 * A failure after the first byte cannot change the status any more, so it becomes a last
 * `data: {"error": …}` event and the stream ends without `[DONE]`; a defect too (as a 500
 * envelope, logged with its cause), so a stream never ends silently.
 */
import { GatewayError, type GatewayRequest } from "@switchyard/core"
import { Cause, Effect, Option, Stream } from "effect"
import * as UnexpectedFailure from "./UnexpectedFailure.ts"

const encoder = new TextEncoder()
const DONE = encoder.encode("data: [DONE]\n\n")

/** The last event of a stream that ends with `error`. */
export const errorEvent = (error: GatewayError.GatewayError): Uint8Array =>
  encoder.encode(`data: ${JSON.stringify(GatewayError.toHttp(error).body)}\n\n`)

export const encode = (
  chunks: Stream.Stream<GatewayRequest.JsonObject, GatewayError.GatewayError>,
  traceId: string
): Stream.Stream<Uint8Array> =>
  chunks.pipe(
    Stream.map((chunk) => encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`)),
    Stream.concat(Stream.succeed(DONE)),
    Stream.catchCause((cause) => {
      const error = Cause.findErrorOption(cause)
      if (Option.isSome(error)) return Stream.succeed(errorEvent(error.value))
      // interrupted (the client left, or the server is stopping): the edge ends the response
      if (Cause.hasInterruptsOnly(cause)) return Stream.fromEffect(Effect.interrupt)
      return Stream.fromEffect(Effect.map(UnexpectedFailure.report(cause, traceId), errorEvent))
    })
  )
