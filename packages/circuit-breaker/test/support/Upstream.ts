/** Test doubles: an upstream that answers as told and counts its calls, and a request. */
import {
  type Dispatch,
  GatewayError,
  type GatewayRequest,
  GatewayResponse,
  type ProviderTarget
} from "@switchyard/core"
import { Effect } from "effect"

export type Answer = () => Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError>

export const ok: Answer = () => Effect.succeed(GatewayResponse.json({ ok: true }))

export const status = (code: number): Answer => () =>
  Effect.fail(new GatewayError.UpstreamStatus({ provider: "openai", status: code, body: {}, headers: {} }))

export const unreachable: Answer = () =>
  Effect.fail(new GatewayError.UpstreamUnreachable({ provider: "openai", message: "connection reset" }))

export const timedOut: Answer = () =>
  Effect.fail(new GatewayError.UpstreamTimeout({ provider: "openai", timeoutMs: 1000 }))

export const invalid: Answer = () => Effect.fail(new GatewayError.InvalidRequest({ message: "bad", param: "model" }))

/** An upstream whose next answer the test sets; `calls` counts the attempts that reached it. */
export class Upstream {
  calls = 0
  answer: Answer = ok

  readonly dispatch: Dispatch.Dispatch = () =>
    Effect.suspend(() => {
      this.calls += 1
      return this.answer()
    })
}

export const request: GatewayRequest.GatewayRequest = {
  endpoint: "chat.completions",
  body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
  stream: false,
  context: {
    traceId: "0123456789abcdef0123456789abcdef",
    spanId: "0123456789abcdef",
    parentSpanId: undefined,
    spanName: undefined,
    metadata: {},
    principal: { keyId: "key-1", workspaceId: "ws-1", scopes: new Set(["admin"]) },
    headers: {},
    receivedAt: 0
  }
}

export const SECRET = "sk-live-very-secret-0123456789"

/** A target with a circuit breaker config, as the compiler hands it to middleware factories. */
export const target = (
  cbConfig: ProviderTarget.ProviderTarget["cb_config"] = { failure_threshold: 3, cooldown_interval: 30_000 },
  fields: Partial<ProviderTarget.ProviderTarget> = {}
): ProviderTarget.ProviderTarget => {
  const withConfig = { provider: "openai", api_key: SECRET, ...fields, cb_config: cbConfig }
  return withConfig
}
