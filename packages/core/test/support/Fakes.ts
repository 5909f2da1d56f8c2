/** Test doubles shared by the core tests: a recording provider adapter and a request. */
import {
  type GatewayRequest,
  GatewayResponse,
  type Principal,
  type ProviderRegistry,
  type ProviderTarget,
  type RequestContext
} from "@switchyard/core"
import { Effect } from "effect"

export interface RecordingAdapter {
  readonly adapter: ProviderRegistry.ProviderAdapter
  /** The targets `make` was called with, in order. */
  readonly built: Array<ProviderTarget.ProviderTarget>
  /** The requests the built dispatches received, in order. */
  readonly received: Array<GatewayRequest.GatewayRequest>
}

/**
 * An adapter for the given names that records what it is built with and what it is asked, and
 * answers `{ provider, api_key }` of its target as JSON.
 */
export const recordingAdapter = (names: ReadonlyArray<string> = ["fake"]): RecordingAdapter => {
  const built: Array<ProviderTarget.ProviderTarget> = []
  const received: Array<GatewayRequest.GatewayRequest> = []
  const adapter: ProviderRegistry.ProviderAdapter = {
    names,
    make: (target) =>
      Effect.sync(() => {
        built.push(target)
        return (request) =>
          Effect.sync(() => {
            received.push(request)
            return GatewayResponse.json({ provider: target.provider, api_key: target.api_key ?? null })
          })
      })
  }
  return { adapter, built, received }
}

export const principal: Principal.Principal = { keyId: "key-1", workspaceId: "ws-1", scopes: new Set(["admin"]) }

export const context = (headers: Readonly<Record<string, string>> = {}): RequestContext.RequestContext => ({
  traceId: "0123456789abcdef0123456789abcdef",
  spanId: "0123456789abcdef",
  parentSpanId: undefined,
  spanName: undefined,
  metadata: {},
  principal,
  headers,
  receivedAt: 0
})

export const chatBody = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] }

export const request = (body: GatewayRequest.JsonObject = chatBody): GatewayRequest.GatewayRequest => ({
  endpoint: "chat.completions",
  body,
  stream: false,
  context: context()
})

/** The JSON body of an answer; fails the test for a stream. */
export const bodyOf = (response: GatewayResponse.GatewayResponse): unknown => {
  if (response._tag !== "Json") throw new Error(`expected a JSON answer, got ${response._tag}`)
  return response.body()
}
