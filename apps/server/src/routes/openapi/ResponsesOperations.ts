/** The OpenAI Responses API, served for every provider through the chat pipeline. */
import { json, type Operation, providerHeaders } from "./OperationShapes.ts"

export const operations: Readonly<Record<string, Operation>> = {
  "POST /v1/responses": {
    tag: "Inference",
    summary: "Create a response (OpenAI Responses API)",
    description: "Translated into a chat request and run through the same pipeline as chat completions "
      + "(routing, retry, circuit breaker, cache, guardrails, limits, logs) for any provider, and the answer "
      + "translated back. `input` is a string or items (messages, `function_call`, `function_call_output`, "
      + "`reasoning`, `item_reference`); function tools only. With `store` (default true) the response is kept "
      + "per workspace, and `previous_response_id` continues it on any provider.",
    body: "ResponsesRequest",
    headers: providerHeaders,
    answer: {
      description: "The `response` object; with `\"stream\": true`, server-sent events `response.created`, "
        + "`response.in_progress`, `response.output_item.added`, `response.content_part.added`, "
        + "`response.output_text.delta`/`.done`, `response.function_call_arguments.delta`/`.done`, "
        + "`response.output_item.done`, then `response.completed` (or `response.incomplete`) with the usage, each "
        + "with `sequence_number`; a stream cut upstream ends with `response.failed` and an `error` event.",
      mediaType: "application/json",
      streams: true
    },
    upstream: true
  },
  "GET /v1/responses/:id": {
    tag: "Inference",
    summary: "A stored response of the caller's workspace",
    answer: json("The `response` object as it was answered.")
  },
  "DELETE /v1/responses/:id": {
    tag: "Inference",
    summary: "Delete a stored response",
    answer: json("`{id, object: \"response.deleted\", deleted: true}`.")
  }
}
