/**
 * The inference endpoints a Dispatch can serve, and their paths under `/v1`.
 */
export type Endpoint = "chat.completions" | "completions" | "embeddings"

export const paths: Readonly<Record<Endpoint, string>> = {
  "chat.completions": "/chat/completions",
  completions: "/completions",
  embeddings: "/embeddings"
}

/** Only these endpoints may answer with a stream. */
export const canStream = (endpoint: Endpoint): boolean => endpoint !== "embeddings"
