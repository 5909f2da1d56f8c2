/**
 * What every strategy does with a child's failure: label it with the child that failed, and say
 * when no child could answer because every circuit is open.
 */
import { ConfigCompiler, type Dispatch, GatewayError, type Strategy } from "@switchyard/core"
import { Effect } from "effect"

/** The error labelled with the child's path and provider, unless a deeper target already did. */
const labelled = (path: string) => (error: GatewayError.GatewayError): GatewayError.GatewayError => {
  if (!GatewayError.isUpstreamFailure(error)) return error
  const headers = error.gatewayHeaders
  // a nested strategy's failure already names the deepest target that failed: keep it
  if (headers?.[ConfigCompiler.OPTION_INDEX_HEADER] !== undefined) return error
  const provider =
    error instanceof GatewayError.TargetsUnavailable || headers?.[ConfigCompiler.PROVIDER_HEADER] !== undefined
      ? {}
      : { [ConfigCompiler.PROVIDER_HEADER]: error.provider }
  return GatewayError.withGatewayHeaders(error, { ...provider, [ConfigCompiler.OPTION_INDEX_HEADER]: path })
}

/**
 * The child's Dispatch whose failures carry `x-gateway-last-used-option-index` (and
 * `x-gateway-provider`), as its answers already do.
 */
export const labelFailures = (target: Strategy.CompiledTarget): Dispatch.Dispatch<never> => {
  const dispatch = target.dispatch
  const label = labelled(target.path)
  return (request) => Effect.mapError(dispatch(request), label)
}

/** 503 for a strategy none of whose targets could be tried; keeps the last target's headers. */
export const allOpen = (path: string, last: GatewayError.TargetsUnavailable): GatewayError.TargetsUnavailable =>
  new GatewayError.TargetsUnavailable({
    message: `${path}: every target has its circuit open`,
    gatewayHeaders: last.gatewayHeaders
  })

/** 400 at compile time: a strategy node without targets. */
export const noTargets = (path: string): GatewayError.InvalidRequest =>
  new GatewayError.InvalidRequest({ message: `${path}.targets: must have at least 1 target`, param: `${path}.targets` })
