/**
 * Reads a request body straight from node:http as a JSON object, within the size limit: 413
 * past it, 400 for anything that is not a JSON object.
 */
import { GatewayError, GatewayRequest } from "@switchyard/core"
import { Effect } from "effect"
import type { IncomingMessage } from "node:http"

type BodyError = GatewayError.InvalidRequest | GatewayError.PayloadTooLarge

export const readJsonObject = (
  request: IncomingMessage,
  limitBytes: number
): Effect.Effect<GatewayRequest.JsonObject, BodyError> => {
  if (Number(request.headers["content-length"]) > limitBytes) {
    return Effect.fail(new GatewayError.PayloadTooLarge({ limitBytes }))
  }
  return Effect.flatMap(readBytes(request, limitBytes), parseObject)
}

const readBytes = (request: IncomingMessage, limitBytes: number) =>
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

const parseObject = (bytes: Buffer): Effect.Effect<GatewayRequest.JsonObject, GatewayError.InvalidRequest> => {
  let value: unknown
  try {
    value = JSON.parse(bytes.toString("utf8"))
  } catch {
    return Effect.fail(new GatewayError.InvalidRequest({ message: "body: is not valid JSON", param: null }))
  }
  return GatewayRequest.isJsonObject(value)
    ? Effect.succeed(value)
    : Effect.fail(new GatewayError.InvalidRequest({ message: "body: must be a JSON object", param: null }))
}
