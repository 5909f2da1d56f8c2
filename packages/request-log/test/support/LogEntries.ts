/** A request log entry of a plain chat completion, for the store tests; `overrides` changes any field. */
import type { LogRecord } from "@switchyard/request-log"

export const entry = (traceId: string, overrides: Partial<LogRecord.Entry> = {}): LogRecord.Entry => ({
  traceId,
  workspaceId: "ws-1",
  apiKeyId: "key-1",
  receivedAt: 1_700_000_000_000,
  route: "POST /v1/chat/completions",
  endpoint: "chat.completions",
  status: 200,
  stream: false,
  provider: "openai",
  model: "gpt-4o-mini",
  targetPath: "config.targets[1]",
  usage: { inputTokens: 10, outputTokens: 5 },
  costUsd: 0.0000045,
  latencyMs: 12.345,
  firstTokenMs: undefined,
  cacheStatus: "MISS",
  retries: 1,
  metadata: { team: "search" },
  ...overrides
})
