/**
 * A stream of chunks as `text/event-stream` bytes: `data: <json>` per chunk, then `data: [DONE]`.
 * A failure after the first byte cannot change the status any more, so it becomes a last
 * `data: {"error": …}` event and the stream ends without `[DONE]`.
 */
import { GatewayError, type GatewayRequest } from "@switchyard/core"
import { Stream } from "effect"

const encoder = new TextEncoder()
const DONE = encoder.encode("data: [DONE]\n\n")

export const encode = (
  chunks: Stream.Stream<GatewayRequest.JsonObject, GatewayError.GatewayError>
): Stream.Stream<Uint8Array> =>
  chunks.pipe(
    Stream.map((chunk) => encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`)),
    Stream.concat(Stream.succeed(DONE)),
    Stream.catch((error) =>
      Stream.succeed(encoder.encode(`data: ${JSON.stringify(GatewayError.toHttp(error).body)}\n\n`))
    )
  )
