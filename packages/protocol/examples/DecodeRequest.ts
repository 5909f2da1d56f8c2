import { ChatCompletionRequest, ErrorBody, GatewayConfig } from "@switchyard/protocol"
import { Effect } from "effect"

// a request body and a config, decoded; a bad one becomes the error body the gateway answers with
export const inspect = (body: unknown, config: unknown) =>
  Effect.gen(function*() {
    const request = yield* ChatCompletionRequest.decode(body)
    const decoded = yield* GatewayConfig.decode(config)
    return { model: request.model, targets: decoded.targets?.length }
  }).pipe(Effect.catchTag("InvalidInput", (error) => Effect.succeed(ErrorBody.fromInvalidInput(error))))
// inspect({ model: "gpt-4o", messages, temperature: 3 }, config) succeeds with
// { error: { message: "temperature: must be between 0 and 2 (got 3)", type: "invalid_request_error", param: "temperature", … } }
