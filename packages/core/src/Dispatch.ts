/**
 * The one idea of the gateway: a call is a function from a request to a response. Providers and
 * strategies are Dispatches; retry, cache, guardrails and the rest are Middleware.
 */
import type { Effect } from "effect"
import type { GatewayError } from "./GatewayError.ts"
import type { GatewayRequest } from "./GatewayRequest.ts"
import type { GatewayResponse } from "./GatewayResponse.ts"

export type Dispatch<R = never> = (request: GatewayRequest) => Effect.Effect<GatewayResponse, GatewayError, R>

export type Middleware<RIn = never, ROut = RIn> = (next: Dispatch<RIn>) => Dispatch<ROut>

/**
 * Composes middleware around a dispatch; the first middleware listed is the outermost, so the
 * order reads like the order a request passes them in.
 */
export const compose = <R>(dispatch: Dispatch<R>, ...middleware: ReadonlyArray<Middleware<R>>): Dispatch<R> =>
  middleware.reduceRight((next, wrap) => wrap(next), dispatch)
