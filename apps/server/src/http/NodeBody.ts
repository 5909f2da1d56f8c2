/**
 * Reads a request body straight from node:http as a JSON object, within the size limit and the
 * time limit: 413 past the size, 408 when the body is slower than the limit (a slow client must
 * not hold a connection), 400 for anything that is not a JSON object. Every route reads its body
 * here. Giving up on a body leaves the socket open, so the error answer can still be written.
 */
import { GatewayError, type GatewayRequest } from "@switchyard/core"
import { Effect } from "effect"
import type { IncomingHttpHeaders } from "node:http"
import type { Readable } from "node:stream"
import { BodyDeadlines } from "./BodyDeadlines.ts"
import * as JsonBody from "./JsonBody.ts"

type BodyError = GatewayError.InvalidRequest | GatewayError.PayloadTooLarge | GatewayError.ClientTimeout

export interface BodyLimits {
  readonly maxBytes: number
  readonly timeoutMs: number
}

/** node's request (HTTP/1 or HTTP/2), as far as reading its body goes. */
export type IncomingBody = Readable & { readonly headers: IncomingHttpHeaders }

/** A reader of bodies within `limits`, its deadlines kept by the server's BodyDeadlines. */
export const jsonObjectReader = (
  limits: BodyLimits
): Effect.Effect<
  (request: IncomingBody) => Effect.Effect<GatewayRequest.JsonObject, BodyError>,
  never,
  BodyDeadlines
> =>
  BodyDeadlines.use((deadlines) =>
    Effect.succeed((request: IncomingBody) => {
      if (Number(request.headers["content-length"]) > limits.maxBytes) {
        return Effect.fail(new GatewayError.PayloadTooLarge({ limitBytes: limits.maxBytes }))
      }
      return Effect.flatMap(readBytes(request, limits, deadlines), JsonBody.parseObject)
    })
  )

export const bodyTooSlow = (timeoutMs: number) =>
  new GatewayError.ClientTimeout({ message: `body: did not arrive within ${timeoutMs / 1000} s` })

const readBytes = (request: IncomingBody, limits: BodyLimits, deadlines: BodyDeadlines["Service"]) =>
  Effect.callback<Buffer, BodyError>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limits.maxBytes) {
        cleanup()
        // keep reading and dropping the rest, so the answer can be written on this connection
        request.resume()
        resume(Effect.fail(new GatewayError.PayloadTooLarge({ limitBytes: limits.maxBytes })))
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
    const cancelDeadline = deadlines.start(limits.timeoutMs, () => {
      cleanup()
      resume(Effect.fail(bodyTooSlow(limits.timeoutMs)))
    })
    const cleanup = () => {
      cancelDeadline()
      request.off("data", onData)
      request.off("end", onEnd)
      request.off("error", onError)
    }
    request.on("data", onData)
    request.on("end", onEnd)
    request.on("error", onError)
    return Effect.sync(cleanup)
  })
