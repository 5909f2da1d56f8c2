/** Test doubles: a request, and a provider Dispatch that answers from a script and records calls. */
import {
  type Dispatch,
  GatewayError,
  type GatewayRequest,
  GatewayResponse,
  type RequestContext
} from "@switchyard/core"
import { Clock, Effect } from "effect"

const context: RequestContext.RequestContext = {
  traceId: "0123456789abcdef0123456789abcdef",
  spanId: "0123456789abcdef",
  parentSpanId: undefined,
  spanName: undefined,
  metadata: {},
  principal: { keyId: "key-1", workspaceId: "ws-1", scopes: new Set(["admin"]) },
  headers: {},
  receivedAt: 0
}

export const request = (stream = false): GatewayRequest.GatewayRequest => ({
  endpoint: "chat.completions",
  body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] },
  stream,
  context
})

export type Outcome = Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError>

export const ok: Outcome = Effect.sync(() => GatewayResponse.json({ ok: true }))

export const status = (code: number, headers: Readonly<Record<string, string>> = {}): Outcome =>
  Effect.fail(new GatewayError.UpstreamStatus({ provider: "fake", status: code, body: {}, headers }))

export const unreachable: Outcome = Effect.fail(
  new GatewayError.UpstreamUnreachable({ provider: "fake", message: "connection reset" })
)

export interface ScriptedUpstream {
  readonly dispatch: Dispatch.Dispatch
  /** The Clock time (ms) at which each call began, in order. */
  readonly calls: Array<number>
}

/** Answers the n-th call with the n-th outcome; the last outcome answers every later call. */
export const scripted = (...outcomes: ReadonlyArray<Outcome>): ScriptedUpstream => {
  const calls: Array<number> = []
  const dispatch: Dispatch.Dispatch = () =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      calls.push(now)
      return outcomes[Math.min(calls.length, outcomes.length) - 1] ?? ok
    })
  return { dispatch, calls }
}
