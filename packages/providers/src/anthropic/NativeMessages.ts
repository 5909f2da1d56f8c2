/**
 * A client that spoke Anthropic's Messages API to the gateway (`GatewayRequest.native`, format
 * `"messages"`) is sent to an Anthropic target in its own words: its body as it came, so nothing
 * the chat format cannot say is lost (`is_error` and images of tool results, the order of blocks,
 * members newer than the gateway), with what the pipeline set on the chat body laid over it (the
 * model a config chose, override_params' sampling members), and its `anthropic-beta` header (the
 * beta features its body may use). Once a stage rewrote the conversation
 * (a mutator hook, a guardrail), `nativeFor` gives nothing and the chat body is translated.
 */
import { type GatewayError, GatewayRequest } from "@switchyard/core"
import { Effect } from "effect"
import { type MappedRequest, toAnthropicRequest } from "./AnthropicRequest.ts"

export const FORMAT = "messages"

const BETA_HEADER = "anthropic-beta"

/** The Messages body to send: the client's own, or the translation of the chat body. */
export const requestOf = (
  request: GatewayRequest.GatewayRequest
): Effect.Effect<MappedRequest, GatewayError.InvalidRequest> => {
  const native = GatewayRequest.nativeFor(request, FORMAT)
  if (native === undefined) return toAnthropicRequest(request.body, request.stream)
  const chat = request.body
  const body: Record<string, unknown> = { ...native.body }
  if (typeof chat.model === "string") body.model = chat.model
  for (const name of ["max_tokens", "temperature", "top_p", "top_k"] as const) {
    if (typeof chat[name] === "number") body[name] = chat[name]
  }
  if (typeof chat.stop === "string") body.stop_sequences = [chat.stop]
  else if (Array.isArray(chat.stop)) body.stop_sequences = chat.stop
  if (request.stream) body.stream = true
  else delete body.stream
  const options = chat.stream_options
  const includeUsage = GatewayRequest.isJsonObject(options) && options.include_usage === true
  // the beta features a Messages client opts into go with its body, which may use them
  const beta = request.context.headers[BETA_HEADER]
  return Effect.succeed({ body, includeUsage, headers: beta === undefined ? {} : { [BETA_HEADER]: beta } })
}
