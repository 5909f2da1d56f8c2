/** Test doubles: requests, check contexts, and a provider Dispatch that records what it received. */
import type { Dispatch, GatewayRequest, RequestContext } from "@switchyard/core"
import { GatewayResponse } from "@switchyard/core"
import type { Check } from "@switchyard/guardrails"
import { Effect, Stream } from "effect"

export const requestContext = (
  options: { readonly metadata?: Record<string, string>; readonly headers?: Record<string, string> } = {}
): RequestContext.RequestContext => ({
  traceId: "trace-1",
  spanId: "span-1",
  parentSpanId: undefined,
  spanName: undefined,
  metadata: options.metadata ?? {},
  principal: { keyId: "key-1", workspaceId: "ws-1", scopes: new Set(["admin"]) },
  headers: options.headers ?? {},
  receivedAt: 0
})

export const chat = (content: string, options: { readonly stream?: boolean; readonly model?: string } = {}) =>
  ({
    endpoint: "chat.completions",
    body: {
      model: options.model ?? "gpt-4o-mini",
      messages: [{ role: "system", content: "be brief" }, { role: "user", content }]
    },
    stream: options.stream ?? false,
    context: requestContext()
  }) satisfies GatewayRequest.GatewayRequest

export const answer = (content: string) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }]
})

/** A provider answering `content` (as JSON, or as a stream of one chunk per word) and recording each request. */
export const fakeProvider = (content: string) => {
  const received: Array<GatewayRequest.GatewayRequest> = []
  const dispatch: Dispatch.Dispatch = (request) =>
    Effect.sync(() => {
      received.push(request)
      if (!request.stream) return GatewayResponse.json(answer(content))
      const words = content.split(/(?<= )/)
      return GatewayResponse.stream(Stream.fromIterable(words.map((word) => ({
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: { content: word } }]
      }))))
    })
  return { dispatch, received }
}

/** A check context judging `text` (before the provider) or `answerText` (after it). */
export const checkContext = (
  text: string,
  options: {
    readonly answerText?: string
    readonly model?: string
    readonly metadata?: Record<string, string>
    readonly headers?: Record<string, string>
    readonly endpoint?: "chatComplete" | "complete" | "embed"
  } = {}
): Check.CheckContext => {
  const body = { model: options.model ?? "gpt-4o-mini", messages: [{ role: "user", content: text }] }
  return {
    eventType: options.answerText === undefined ? "beforeRequestHook" : "afterRequestHook",
    requestType: options.endpoint ?? "chatComplete",
    request: { body, text, stream: false },
    response: options.answerText === undefined
      ? undefined
      : { body: answer(options.answerText), text: options.answerText, status: 200 },
    metadata: options.metadata ?? {},
    headers: options.headers ?? {},
    traceId: "trace-1",
    workspaceId: "ws-1"
  }
}
