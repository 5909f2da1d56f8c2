/**
 * Reads a request body straight from node:http as a JSON object, within the size limit and the
 * time limit: 413 past the size, 408 when the body is slower than the limit (a slow client must
 * not hold a connection), 400 for anything that is not a JSON object. Every route reads its body
 * here. Giving up on a body leaves the socket open, so the error answer can still be written.
 */
import { GatewayError, type GatewayRequest } from "@switchyard/core"
import { Duration, Effect } from "effect"
import type { IncomingHttpHeaders } from "node:http"
import type { Readable } from "node:stream"
import * as JsonBody from "./JsonBody.ts"

type BodyError = GatewayError.InvalidRequest | GatewayError.PayloadTooLarge | GatewayError.ClientTimeout

export interface BodyLimits {
  readonly maxBytes: number
  readonly timeoutMs: number
}

/** node's request (HTTP/1 or HTTP/2), as far as reading its body goes. */
export type IncomingBody = Readable & { readonly headers: IncomingHttpHeaders }

export const readJsonObject = (
  request: IncomingBody,
  limits: BodyLimits
): Effect.Effect<GatewayRequest.JsonObject, BodyError> => {
  if (Number(request.headers["content-length"]) > limits.maxBytes) {
    return Effect.fail(new GatewayError.PayloadTooLarge({ limitBytes: limits.maxBytes }))
  }
  return readBytes(request, limits.maxBytes).pipe(
    Effect.timeoutOrElse({
      duration: Duration.millis(limits.timeoutMs),
      orElse: () => Effect.fail(bodyTooSlow(limits.timeoutMs))
    }),
    Effect.flatMap(JsonBody.parseObject)
  )
}

export const bodyTooSlow = (timeoutMs: number) =>
  new GatewayError.ClientTimeout({ message: `body: did not arrive within ${timeoutMs / 1000} s` })

const readBytes = (request: IncomingBody, limitBytes: number) =>
  Effect.callback<Buffer, BodyError>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limitBytes) {
        cleanup()
        // keep reading and dropping the rest, so the answer can be written on this connection
        request.resume()
        resume(Effect.fail(new GatewayError.PayloadTooLarge({ limitBytes })))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resume(Effect.succeed(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks, size)))
    }
    const onError = () => {
      cleanup()
      resume(Effect.fail(new GatewayError.InvalidRequest({ message: "body: could not be read", param: null })))
    }
    const cleanup = () => {
      request.off("data", onData)
      request.off("end", onEnd)
      request.off("error", onError)
    }
    request.on("data", onData)
    request.on("end", onEnd)
    request.on("error", onError)
    return Effect.sync(cleanup)
  })
