/** Requests as the compiler's dispatch receives them, from one API key of one workspace. */
import type { GatewayRequest } from "@switchyard/core"

export const request = (
  options: {
    readonly keyId?: string
    readonly body?: GatewayRequest.JsonObject
    readonly stream?: boolean
    readonly metadata?: Readonly<Record<string, string>>
  } = {}
): GatewayRequest.GatewayRequest => ({
  endpoint: "chat.completions",
  body: options.body ?? { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }], max_tokens: 16 },
  stream: options.stream ?? false,
  context: {
    traceId: "0123456789abcdef0123456789abcdef",
    spanId: "0123456789abcdef",
    parentSpanId: undefined,
    spanName: undefined,
    metadata: options.metadata ?? {},
    principal: { keyId: options.keyId ?? "key-1", workspaceId: "ws-1", scopes: new Set(["admin"]) },
    headers: {},
    receivedAt: 0
  }
})
