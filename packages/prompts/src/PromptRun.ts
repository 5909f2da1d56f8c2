/**
 * Running a prompt (interface 4.2): its version's template rendered with the request's
 * `variables`, under the version's saved parameters, which the request's root-level
 * hyperparameters override; then, for a completion, the result runs through the gateway pipeline
 * as a chat completion does (selection, routing, retry, cache, guardrails, limits).
 *
 * @example
 * import { PromptRun } from "@switchyard/prompts"
 * const answer = PromptRun.complete({ reference: "pp-…@latest", run: { variables: { name: "Ada" } }, context })
 */
import { Gateway, GatewayError, type GatewayRequest, type GatewayResponse, RequestContext } from "@switchyard/core"
import { ChatCompletionRequest, InvalidInput, type PromptTemplate } from "@switchyard/protocol"
import { Context, Effect, Result } from "effect"
import { parseReference, PromptStore, type PromptVersion } from "./PromptStore.ts"
import * as Template from "./Template.ts"

/**
 * The prompt completion a request is part of, for the leaves of a config that name a prompt of
 * their own (`prompt_id`): they render it with the same variables and hyperparameters. Unset on
 * every other request.
 */
export const CurrentRun = Context.Reference<CurrentRun | undefined>("@switchyard/prompts/PromptRun/CurrentRun", {
  defaultValue: () => undefined
})

export interface CurrentRun {
  readonly workspaceId: string
  readonly run: PromptTemplate.RunPrompt
}

const decodeChat = InvalidInput.decodeInputResult(ChatCompletionRequest.ChatCompletionRequest)

/**
 * The chat completion request a version and a run make: the version's model and parameters, the
 * run's root-level members over them, and the rendered template as `messages`. `fallbackModel`
 * serves when neither names a model.
 */
export const chatBody = (
  version: PromptVersion,
  run: PromptTemplate.RunPrompt,
  fallbackModel?: unknown
): Effect.Effect<GatewayRequest.JsonObject, GatewayError.InvalidRequest> =>
  Effect.flatMap(Template.render(version, run.variables), (messages) => {
    const { variables: _variables, ...hyperparameters } = run
    const model = version.model ?? fallbackModel
    const body = {
      ...(model === undefined ? {} : { model }),
      ...version.parameters,
      ...hyperparameters,
      messages
    }
    const decoded = decodeChat(body)
    return Result.isSuccess(decoded)
      ? Effect.succeed(body)
      : Effect.fail(new GatewayError.InvalidRequest({ message: decoded.failure.message, param: decoded.failure.param }))
  })

/** The chat completion request a prompt reference renders to, without calling a provider. */
export const render = (options: {
  readonly workspaceId: string
  readonly reference: string
  readonly run: PromptTemplate.RunPrompt
}): Effect.Effect<GatewayRequest.JsonObject, GatewayError.GatewayError, PromptStore> =>
  Effect.gen(function*() {
    const store = yield* PromptStore
    const version = yield* store.resolve(options.workspaceId, yield* parseReference(options.reference))
    return yield* chatBody(version, options.run)
  })

const SELECTION_HEADERS = [
  RequestContext.Headers.config,
  RequestContext.Headers.provider,
  RequestContext.Headers.virtualKey
]

/**
 * The prompt's own provider (or integration, as `@slug`) serves when the request selects none:
 * a caller's `x-gateway-config`, `x-gateway-provider` or virtual key wins.
 */
const withPromptProvider = (
  context: RequestContext.RequestContext,
  version: PromptVersion
): RequestContext.RequestContext => {
  const provider = version.provider ?? (version.integration === undefined ? undefined : `@${version.integration}`)
  if (provider === undefined || SELECTION_HEADERS.some((name) => context.headers[name] !== undefined)) return context
  return { ...context, headers: { ...context.headers, [RequestContext.Headers.provider]: provider } }
}

/**
 * Renders the prompt and runs it as a chat completion through the gateway pipeline; the answer
 * is the pipeline's own (JSON or a stream of chunks).
 */
export const complete = (options: {
  readonly reference: string
  readonly run: PromptTemplate.RunPrompt
  readonly context: RequestContext.RequestContext
}): Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError, PromptStore | Gateway.Gateway> =>
  Effect.gen(function*() {
    const workspaceId = options.context.principal.workspaceId
    const store = yield* PromptStore
    const version = yield* store.resolve(workspaceId, yield* parseReference(options.reference))
    const body = yield* chatBody(version, options.run)
    const gateway = yield* Gateway.Gateway
    return yield* gateway.handle({
      endpoint: "chat.completions",
      body,
      context: withPromptProvider(options.context, version)
    }).pipe(Effect.provideService(CurrentRun, { workspaceId, run: options.run }))
  })

/** Interface 4.2's answer to a plain (not streamed) prompt completion. */
export const envelope = (answer: GatewayResponse.JsonResponse, headers: Readonly<Record<string, string>>) => ({
  status: "success" as const,
  headers,
  body: answer.body()
})
