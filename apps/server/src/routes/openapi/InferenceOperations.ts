/** The OpenAI-compatible inference endpoints. */
import { json, type Operation, providerHeaders } from "./OperationShapes.ts"

export const operations: Readonly<Record<string, Operation>> = {
  "POST /v1/chat/completions": {
    tag: "Inference",
    summary: "Chat completion",
    body: "ChatCompletionRequest",
    headers: providerHeaders,
    answer: {
      description: "The completion; with `\"stream\": true`, server-sent events of chunks ending in `data: [DONE]`.",
      mediaType: "application/json",
      schema: "ChatCompletion",
      streams: true
    },
    upstream: true
  },
  "POST /v1/completions": {
    tag: "Inference",
    summary: "Text completion",
    body: "CompletionRequest",
    headers: providerHeaders,
    answer: {
      description: "The completion; with `\"stream\": true`, server-sent events ending in `data: [DONE]`.",
      mediaType: "application/json",
      streams: true
    },
    upstream: true
  },
  "POST /v1/embeddings": {
    tag: "Inference",
    summary: "Embeddings",
    body: "EmbeddingRequest",
    headers: providerHeaders,
    answer: json("The embeddings, in OpenAI's list shape."),
    upstream: true
  }
}
