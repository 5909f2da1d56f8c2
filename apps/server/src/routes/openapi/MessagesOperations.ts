/** Anthropic's Messages API, served for every provider through the chat pipeline. */
import { type Operation, providerHeaders } from "./OperationShapes.ts"

const keys = "Anthropic's clients send one key: without `x-gateway-api-key`, the key in `x-api-key` or "
  + "`Authorization: Bearer` is taken as the gateway key (the provider's credentials then come from a config, "
  + "virtual key or integration); with it, `x-api-key` may carry the provider's key."

export const operations: Readonly<Record<string, Operation>> = {
  "POST /v1/messages": {
    tag: "Inference",
    summary: "Create a message (Anthropic Messages API)",
    description: "Translated into a chat request and run through the same pipeline as chat completions "
      + "(routing, retry, circuit breaker, cache, guardrails, limits, logs) for any provider, and the answer "
      + "translated back; an Anthropic target (and Claude on Vertex AI) gets the request in Anthropic's own "
      + "shape. `max_tokens` is required; `messages` hold text, image, document, `tool_use`, `tool_result`, "
      + "`thinking` and `redacted_thinking` blocks; custom tools only. Errors answer in Anthropic's shape. "
      + keys,
    body: "MessagesRequest",
    headers: providerHeaders,
    answer: {
      description: "The Message (`content` blocks, `stop_reason` `end_turn`, `max_tokens`, `stop_sequence`, "
        + "`tool_use` or `refusal`, `usage`); with `\"stream\": true`, server-sent events `message_start` (usage "
        + "with the estimated input tokens), `content_block_start`, `content_block_delta` (`text_delta`, "
        + "`input_json_delta`, `thinking_delta`, `signature_delta`), `content_block_stop`, `message_delta` (stop "
        + "reason and the provider's usage), `message_stop`; a stream cut upstream ends with an `error` event.",
      mediaType: "application/json",
      streams: true
    },
    upstream: true,
    errorBody: "MessagesErrorBody"
  },
  "POST /v1/messages/count_tokens": {
    tag: "Inference",
    summary: "Count a message's input tokens",
    description: "The request of `POST /v1/messages` without `max_tokens`; answers `{input_tokens}`. Where the "
      + "selected provider's API counts (`anthropic`; Claude on `bedrock` through CountTokens and on `vertex-ai` "
      + "through `count-tokens:rawPredict`), the provider counts, with the config's first target's credentials, "
      + "and its errors answer with their status. Every other provider, and a request naming none, is counted "
      + "locally with OpenAI's tokenizers (`o200k_base` or `cl100k_base` by model; 1,600 an image or PDF). " + keys,
    body: "CountTokensRequest",
    answer: { description: "`{input_tokens}`.", mediaType: "application/json" },
    upstream: true,
    errorBody: "MessagesErrorBody"
  }
}
