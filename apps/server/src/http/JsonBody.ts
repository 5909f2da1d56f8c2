/**
 * Reads a request body as a JSON object, within the size limit: 413 past it, 400 for anything
 * that is not a JSON object.
 */
import { GatewayError, GatewayRequest } from "@switchyard/core"
import { ByteSize, Effect } from "effect"
import { HttpServerRequest } from "effect/http"

export const read = (
  request: HttpServerRequest.HttpServerRequest,
  limitBytes: number
): Effect.Effect<GatewayRequest.JsonObject, GatewayError.InvalidRequest | GatewayError.PayloadTooLarge> => {
  const declared = Number(request.headers["content-length"])
  if (declared > limitBytes) return Effect.fail(new GatewayError.PayloadTooLarge({ limitBytes }))
  return request.text.pipe(
    Effect.provideService(HttpServerRequest.MaxBodySize, ByteSize.bytes(limitBytes)),
    Effect.mapError((error) =>
      error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"
        ? new GatewayError.PayloadTooLarge({ limitBytes })
        : new GatewayError.InvalidRequest({ message: "body: could not be read", param: null })
    ),
    Effect.flatMap(parseObject)
  )
}

const parseObject = (text: string): Effect.Effect<GatewayRequest.JsonObject, GatewayError.InvalidRequest> => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return Effect.fail(new GatewayError.InvalidRequest({ message: "body: is not valid JSON", param: null }))
  }
  return GatewayRequest.isJsonObject(value)
    ? Effect.succeed(value)
    : Effect.fail(new GatewayError.InvalidRequest({ message: "body: must be a JSON object", param: null }))
}
