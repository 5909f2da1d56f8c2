/**
 * The pipeline from an inference request to its answer, independent of transport: the HTTP
 * server, the batch worker and assistant runs all call it. It validates the body, builds the
 * request context, selects the provider, compiles (or reuses) the config's Dispatch and calls it.
 */
import { ChatCompletionRequest, CompletionRequest, EmbeddingRequest, InvalidInput } from "@switchyard/protocol"
import { Context, Effect, Layer, Result } from "effect"
import { ConfigCompiler } from "./ConfigCompiler.ts"
import type { Endpoint } from "./Endpoint.ts"
import { type GatewayError, InvalidRequest } from "./GatewayError.ts"
import type { JsonObject, NativeRequest } from "./GatewayRequest.ts"
import type { GatewayResponse } from "./GatewayResponse.ts"
import * as ProviderSelection from "./ProviderSelection.ts"
import type * as RequestContext from "./RequestContext.ts"

export interface GatewayInput {
  readonly endpoint: Endpoint
  /** The body as parsed JSON, not yet validated. */
  readonly body: JsonObject
  /** Carries the headers (provider selection reads them) and the principal. */
  readonly context: RequestContext.RequestContext
  /** The client's own request in another format, for a provider that serves it (GatewayRequest.native). */
  readonly native?: NativeRequest | undefined
}

const validators: Readonly<Record<Endpoint, (body: unknown) => Result.Result<unknown, InvalidInput.InvalidInput>>> = {
  "chat.completions": InvalidInput.decodeInputResult(ChatCompletionRequest.ChatCompletionRequest),
  completions: InvalidInput.decodeInputResult(CompletionRequest.CompletionRequest),
  embeddings: InvalidInput.decodeInputResult(EmbeddingRequest.EmbeddingRequest)
}

/** Checks the body against its endpoint's schema; the body itself is forwarded as it came. */
export const validate = (endpoint: Endpoint, body: JsonObject): Effect.Effect<void, InvalidRequest> => {
  const result = validators[endpoint](body)
  return Result.isSuccess(result)
    ? Effect.void
    : Effect.fail(new InvalidRequest({ message: result.failure.message, param: result.failure.param }))
}

export class Gateway extends Context.Service<Gateway, {
  readonly handle: (input: GatewayInput) => Effect.Effect<GatewayResponse, GatewayError>
}>()("@switchyard/core/Gateway") {
  static readonly layer: Layer.Layer<Gateway, never, ConfigCompiler | ProviderSelection.Selectors> = Layer.effect(
    Gateway,
    Effect.gen(function*() {
      const compiler = yield* ConfigCompiler
      const selectors = (yield* ProviderSelection.Selectors).list
      return Gateway.of({
        // a chain rather than a generator: this runs for every request, and measured per request
        // a generator and its iterators cost more garbage than the closures below
        handle: (input) =>
          Effect.flatMap(validate(input.endpoint, input.body), () =>
            ProviderSelection.selectWith(selectors, {
              headers: input.context.headers,
              model: typeof input.body.model === "string" ? input.body.model : undefined,
              workspaceId: input.context.principal.workspaceId
            }).pipe(
              Effect.flatMap((selection) => compiler.dispatch(selection.key, selection.config)),
              Effect.flatMap((dispatch) =>
                dispatch({
                  endpoint: input.endpoint,
                  body: input.body,
                  stream: input.body.stream === true,
                  context: input.context,
                  native: input.native
                })
              )
            ))
      })
    })
  )
}
