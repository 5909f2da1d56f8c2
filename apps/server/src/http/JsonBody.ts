/**
 * A request body as a JSON object: every route reads its body through this one function, so the
 * rules are the same everywhere (valid JSON, an object, nested at most 64 levels).
 */
import { GatewayError, GatewayRequest } from "@switchyard/core"
import { JsonLimits } from "@switchyard/protocol"
import { Effect } from "effect"

const invalid = (rule: string) =>
  Effect.fail(new GatewayError.InvalidRequest({ message: `body: ${rule}`, param: null }))

export const parseObject = (
  text: Uint8Array | string
): Effect.Effect<GatewayRequest.JsonObject, GatewayError.InvalidRequest> => {
  // checked on the text first: the parser and everything that walks the value later recurse
  if (JsonLimits.exceedsDepth(text)) return invalid(JsonLimits.depthRule)
  let value: unknown
  try {
    value = JSON.parse(typeof text === "string" ? text : textDecoder.decode(text))
  } catch {
    return invalid("is not valid JSON")
  }
  return GatewayRequest.isJsonObject(value) ? Effect.succeed(value) : invalid("must be a JSON object")
}

const textDecoder = new TextDecoder()
