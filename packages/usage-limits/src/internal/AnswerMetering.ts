/**
 * What the stage does to a leaf's answer: tells a cache hit (which costs nothing), adds the rate
 * limit headers, asks a stream for its usage and follows it to the stream's end.
 */
import { type Dispatch, type GatewayRequest, GatewayResponse } from "@switchyard/core"
import { Effect, Exit, Stream } from "effect"
import * as Metering from "../Metering.ts"
import { NOTHING } from "./Claims.ts"

/** Answered by the cache middleware inside this stage; a hit calls no provider and costs nothing. */
const CACHE_STATUS_HEADER = "x-gateway-cache-status"

export const isCacheHit = (response: GatewayResponse.GatewayResponse): boolean => {
  const status = response.headers[CACHE_STATUS_HEADER]
  return status === "HIT" || status === "SEMANTIC HIT"
}

/** Asks the provider for a stream's usage when the client did not; the usage chunk is then kept from it. */
export const withStreamUsage = (request: GatewayRequest.GatewayRequest): GatewayRequest.GatewayRequest => {
  const options = request.body.stream_options
  const asked = typeof options === "object" && options !== null && "include_usage" in options &&
    options.include_usage === true
  if (!request.stream || request.endpoint === "embeddings" || asked) return request
  return {
    ...request,
    body: { ...request.body, stream_options: { ...(typeof options === "object" ? options : {}), include_usage: true } }
  }
}

export const streamAsked = (request: GatewayRequest.GatewayRequest): boolean => {
  const options = request.body.stream_options
  return typeof options === "object" && options !== null && "include_usage" in options && options.include_usage === true
}

export const withHeaders = <A extends GatewayResponse.GatewayResponse>(
  response: A,
  headers: Readonly<Record<string, string>>
): GatewayResponse.GatewayResponse =>
  Object.keys(headers).length === 0 ? response : GatewayResponse.withHeaders(response, headers)

/** Follows a stream's usage, settling at its end whatever the end is; hides the usage chunk the client did not ask for. */
export const metered = (
  response: GatewayResponse.StreamResponse,
  clientAskedUsage: boolean,
  bound: Metering.Tokens,
  settle: (used: Metering.Tokens) => Effect.Effect<void>
): GatewayResponse.StreamResponse => {
  let reported: Metering.Tokens | undefined
  let sentBytes = 0
  const chunks = response.chunks.pipe(
    Stream.tap((chunk) =>
      Effect.sync(() => {
        reported = Metering.reportedUsage(chunk) ?? reported
        sentBytes += Metering.textBytes(chunk.choices)
      })
    ),
    Stream.filter((chunk) =>
      clientAskedUsage || !(Array.isArray(chunk.choices) && chunk.choices.length === 0 && "usage" in chunk)
    ),
    Stream.map((chunk) => {
      if (clientAskedUsage || !("usage" in chunk)) return chunk
      const { usage: _, ...rest } = chunk
      return rest
    }),
    Stream.onExit(() => settle(reported ?? { promptTokens: bound.promptTokens, completionTokens: sentBytes }))
  )
  return { ...response, chunks }
}

/**
 * An admitted request on to the provider, its answer with the rate-limit `headers`; `settle` runs
 * once with what the request used: a JSON answer's reported usage (or a bound from its text), a
 * stream's at its end, nothing for a failure or a cache hit.
 */
export const settledAnswer = (
  next: Dispatch.Dispatch,
  request: GatewayRequest.GatewayRequest,
  bound: Metering.Tokens,
  headers: Readonly<Record<string, string>>,
  settle: (used: Metering.Tokens) => Effect.Effect<void>
): ReturnType<Dispatch.Dispatch> =>
  Effect.flatMap(
    Effect.onExit(next(withStreamUsage(request)), (exit) => Exit.isSuccess(exit) ? Effect.void : settle(NOTHING)),
    (response) => {
      if (isCacheHit(response)) return Effect.as(settle(NOTHING), withHeaders(response, headers))
      if (response._tag === "Json") {
        const body = response.body()
        const used = Metering.reportedUsage(body) ??
          { promptTokens: bound.promptTokens, completionTokens: Metering.textBytes(body) }
        return Effect.as(settle(used), withHeaders(response, headers))
      }
      return Effect.succeed(withHeaders(metered(response, streamAsked(request), bound, settle), headers))
    }
  )
