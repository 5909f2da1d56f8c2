import type { Target } from "./LoadRun.ts"

export interface StreamingResult {
  readonly target: string
  readonly status: number
  /** From sending the request to the first byte of the response body. */
  readonly firstChunkMs: number
  readonly totalMs: number
  readonly chunksReceived: number
  readonly completed: boolean
  readonly error?: string
}

/**
 * One streamed request against an upstream that spaces its chunks: a proxy that relays chunk by chunk
 * shows a first chunk long before the total; one that buffers shows them almost equal.
 */
export const checkStreaming = (target: Target, body: unknown, timeoutMs: number): Promise<StreamingResult> =>
  streamOnce(target, body, timeoutMs).catch((error: unknown) => ({
    target: target.name,
    status: 0,
    firstChunkMs: Number.NaN,
    totalMs: Number.NaN,
    chunksReceived: 0,
    completed: false,
    error: describeError(error)
  }))

const streamOnce = async (target: Target, body: unknown, timeoutMs: number): Promise<StreamingResult> => {
  const started = performance.now()
  let firstChunkMs = Number.NaN
  let chunksReceived = 0
  let text = ""
  const response = await fetch(target.url, {
    method: "POST",
    headers: target.headers,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs)
  })
  const decoder = new TextDecoder()
  for await (const chunk of response.body ?? []) {
    if (chunksReceived === 0) firstChunkMs = performance.now() - started
    chunksReceived += 1
    text += decoder.decode(chunk, { stream: true })
  }
  return {
    target: target.name,
    status: response.status,
    firstChunkMs,
    totalMs: performance.now() - started,
    chunksReceived,
    // an Anthropic-format stream (`--messages`) ends with message_stop instead
    completed: text.includes("data: [DONE]") || text.includes("event: message_stop")
  }
}

/** fetch hides the socket error in `cause`. */
export const describeError = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message
}
