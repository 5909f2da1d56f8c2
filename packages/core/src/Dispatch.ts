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
 * Whether a stage's dispatch would, for this request at this time (epoch milliseconds), only hand
 * it on: decided at once, without running it.
 */
export type IdleTest = (request: GatewayRequest, nowMillis: number) => boolean

const idleTests = new WeakMap<object, IdleTest>()

/**
 * Marks a stage's dispatch with its {@link IdleTest} (the usage limits, when no policy is active in
 * the request's workspace): the pipeline makes no span for a check that has nothing to check.
 */
export const withIdleTest = <R>(dispatch: Dispatch<R>, idle: IdleTest): Dispatch<R> => {
  idleTests.set(dispatch, idle)
  return dispatch
}

/** The {@link IdleTest} a dispatch was marked with; read once, as a pipeline is compiled. */
export const idleTestOf = <R>(dispatch: Dispatch<R>): IdleTest | undefined => idleTests.get(dispatch)

/**
 * Composes middleware around a dispatch; the first middleware listed is the outermost, so the
 * order reads like the order a request passes them in.
 */
export const compose = <R>(dispatch: Dispatch<R>, ...middleware: ReadonlyArray<Middleware<R>>): Dispatch<R> =>
  middleware.reduceRight((next, wrap) => wrap(next), dispatch)
