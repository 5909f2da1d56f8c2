/**
 * The inference endpoints a Dispatch can serve, and their paths under `/v1`.
 */
export type Endpoint = "chat.completions" | "completions" | "embeddings"

export const paths: Readonly<Record<Endpoint, string>> = {
  "chat.completions": "/chat/completions",
  completions: "/completions",
  embeddings: "/embeddings"
}

/** The operations as the OpenTelemetry GenAI conventions name them (`gen_ai.operation.name`). */
export const operationNames: Readonly<Record<Endpoint, string>> = {
  "chat.completions": "chat",
  completions: "text_completion",
  embeddings: "embeddings"
}

/** Only these endpoints may answer with a stream. */
export const canStream = (endpoint: Endpoint): boolean => endpoint !== "embeddings"
