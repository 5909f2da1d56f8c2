/**
 * A version's saved `parameters` are checked when the version is written, with the chat request's
 * own bounds, so that a bad value is refused then (`parameters.temperature: …`) rather than on
 * every run.
 */
import { GatewayError } from "@switchyard/core"
import { ChatCompletionRequest, InvalidInput } from "@switchyard/protocol"
import { Effect, Result } from "effect"

const decodeParameters = InvalidInput.decodeInputResult(ChatCompletionRequest.ChatCompletionRequest, {
  root: "parameters"
})

// the members parameters may not hold (protocol's PromptDefinition refuses them), so any value will do
const PLACEHOLDER = { model: "placeholder", messages: [{ role: "user", content: "placeholder" }] }

export const checkParameters = (
  parameters: Readonly<Record<string, unknown>> | undefined
): Effect.Effect<void, GatewayError.InvalidRequest> => {
  if (parameters === undefined) return Effect.void
  const decoded = decodeParameters({ ...PLACEHOLDER, ...parameters })
  return Result.isSuccess(decoded)
    ? Effect.void
    : Effect.fail(new GatewayError.InvalidRequest({ message: decoded.failure.message, param: decoded.failure.param }))
}
