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
import { type Dispatch, GatewayError, GatewayRequest, Stage } from "@switchyard/core"
import { Effect } from "effect"
import { chatBody, CurrentRun } from "./PromptRun.ts"
import { parseReference, PromptStore } from "./PromptStore.ts"

export const make = Effect.gen(function*() {
  const store = yield* PromptStore
  return Stage.make("prompt", "prompt-id", (target, path) => {
    const promptId = target.prompt_id
    if (promptId === undefined) return Effect.succeed((next) => next)
    const refused = new GatewayError.InvalidRequest({
      message: `${path}.prompt_id: a target that names a prompt runs only on prompt completions ` +
        "(POST /v1/prompts/{promptId}/completions)",
      param: `${path}.prompt_id`
    })
    const middleware: Dispatch.Middleware = (next) => (request) =>
      Effect.gen(function*() {
        const current = yield* CurrentRun
        if (current === undefined) return yield* refused
        const version = yield* store.resolve(current.workspaceId, yield* parseReference(promptId))
        const body = yield* chatBody(version, current.run, request.body.model)
        // the leaf's override_params were applied to the body this replaces: they apply again, last
        return yield* next(GatewayRequest.withBody(request, { ...body, ...target.override_params }))
      })
    return Effect.succeed(middleware)
  })
})

/** The stage, added to the pipeline's stages (it needs the prompt store). */
export const layer = Stage.layer(make)
