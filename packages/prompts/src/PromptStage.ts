/**
 * `prompt_id` in a config (extensions.md, "Prompt templates"): on a prompt completion, a leaf
 * target that names a prompt (optionally `@latest` / `@N`) renders that prompt with the request's
 * variables and hyperparameters instead of the one in the path, so a `loadbalance` over targets
 * with different prompts A/B-tests them and a `fallback` falls back to another prompt. On every
 * other request such a leaf answers 400 naming its `prompt_id`. The stage is outermost, so the
 * guardrails, limits and cache of the leaf see the messages its provider receives.
 *
 * @example
 * import { PromptStage } from "@switchyard/prompts"
 * // with Stage.Stages and PromptStore provided, next to the other stage layers
 * const stages = PromptStage.layer
 */
import {
  ConfigCompiler,
  type Dispatch,
  GatewayError,
  GatewayRequest,
  LeastRecentlyUsed,
  ProviderRegistry,
  type ProviderTarget,
  Stage,
  Strategy
} from "@switchyard/core"
import { Effect } from "effect"
import { chatBody, CurrentRun } from "./PromptRun.ts"
import { parseReference, PromptStore, type PromptVersion } from "./PromptStore.ts"

/** The provider a version names: its provider, or its integration as `@slug`. */
const providerOf = (version: PromptVersion): string | undefined =>
  version.provider ?? (version.integration === undefined ? undefined : `@${version.integration}`)

export const make = Effect.gen(function*() {
  const store = yield* PromptStore
  // a leaf that names only its prompt is compiled again, per provider, as a leaf of that provider
  const compileContext = yield* Effect.context<ProviderRegistry.ProviderRegistry | Stage.Stages>()
  const compileLeaf = (target: ProviderTarget.ProviderTarget, provider: string, path: string) =>
    ConfigCompiler.compile({ ...target, provider, prompt_id: undefined }, path).pipe(
      Effect.provideContext(compileContext),
      // a leaf has no strategy to compile
      Effect.provide(Strategy.Strategies.layerSingle)
    )
  return Stage.make("prompt", "prompt-id", (target, path) => {
    const promptId = target.prompt_id
    if (promptId === undefined) return Effect.succeed((next) => next)
    const refused = new GatewayError.InvalidRequest({
      message: `${path}.prompt_id: a target that names a prompt runs only on prompt completions ` +
        "(POST /v1/prompts/{promptId}/completions)",
      param: `${path}.prompt_id`
    })
    const ownProvider = target.provider !== ConfigCompiler.PROMPT_PROVIDER
    const byProvider = new LeastRecentlyUsed.LeastRecentlyUsed<string, Dispatch.Dispatch>(8)
    /** Where the rendered request goes: the leaf's own chain, or that of a leaf of the prompt's provider. */
    const upstreamFor = (version: PromptVersion, next: Dispatch.Dispatch) => {
      if (ownProvider) return Effect.succeed(next)
      const provider = providerOf(version)
      if (provider === undefined) {
        return Effect.fail(
          new GatewayError.InvalidRequest({
            message: `${path}.prompt_id: prompt ${version.id} names no provider or integration, and neither ` +
              "does this target (set provider on the target or its ancestors, or on the prompt)",
            param: `${path}.prompt_id`
          })
        )
      }
      const known = byProvider.get(provider)
      if (known !== undefined) return Effect.succeed(known)
      return Effect.tap(
        compileLeaf(target, provider, path),
        (dispatch) => Effect.sync(() => byProvider.set(provider, dispatch))
      )
    }
    const middleware: Dispatch.Middleware = (next) => (request) =>
      Effect.gen(function*() {
        const current = yield* CurrentRun
        if (current === undefined) return yield* refused
        const version = yield* store.resolve(current.workspaceId, yield* parseReference(promptId))
        const body = yield* chatBody(version, current.run, request.body.model)
        const upstream = yield* upstreamFor(version, next)
        // the leaf's override_params were applied to the body this replaces: they apply again, last
        return yield* upstream(GatewayRequest.withBody(request, { ...body, ...target.override_params }))
      })
    return Effect.succeed(middleware)
  })
})

/** The stage, added to the pipeline's stages (it needs the prompt store and the provider adapters). */
export const layer = Stage.layer(make)
