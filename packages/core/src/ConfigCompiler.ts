/**
 * Turns a config tree into one Dispatch, and keeps what it built: a config is compiled once per
 * distinct content, not per request.
 */
import { Tracing } from "@switchyard/observability"
import { Context, Effect, Layer } from "effect"
import { type ConfigNode, inherit, type StrategyNode } from "./ConfigNode.ts"
import { compose, type Dispatch } from "./Dispatch.ts"
import { InvalidRequest, withGatewayHeaders } from "./GatewayError.ts"
import { withBody } from "./GatewayRequest.ts"
import { withHeaders } from "./GatewayResponse.ts"
import { LeastRecentlyUsed } from "./LeastRecentlyUsed.ts"
import * as PipelineSpans from "./PipelineSpans.ts"
import { dispatchFor, type ProviderRegistry } from "./ProviderRegistry.ts"
import type { ProviderTarget } from "./ProviderTarget.ts"
import { Stages } from "./Stage.ts"
import { type CompiledTarget, Strategies } from "./Strategy.ts"

/** What compiling needs: the provider adapters, the strategy table and the per-target stages. */
export type CompileServices = ProviderRegistry | Strategies | Stages

/** Response header naming the provider that answered. */
export const PROVIDER_HEADER = "x-gateway-provider"
/** Response header naming the path of the target that answered. */
export const OPTION_INDEX_HEADER = "x-gateway-last-used-option-index"

/** The provider name under which stored credentials (`@slug`, virtual keys) are resolved. */
export const STORED_PROVIDER = "@"

/**
 * The provider of a leaf that names only its prompt (`prompt_id`, no provider): the prompt stage
 * answers in its place with the prompt's own provider; anywhere else it has none.
 */
export const PROMPT_PROVIDER = "prompt_id"

/** Compiles a tree; `path` is the root's name in messages and headers. */
export const compile = (
  root: ConfigNode,
  path = "config"
): Effect.Effect<Dispatch, InvalidRequest, CompileServices> => compileNode(undefined, root, path)

const compileNode = (
  parent: ConfigNode | undefined,
  own: ConfigNode,
  path: string
): Effect.Effect<Dispatch, InvalidRequest, CompileServices> => {
  const node = inherit(parent, own)
  if (own.strategy === undefined && own.targets === undefined) return compileLeaf(node, path)
  // a node's own on_status_codes is its fallback's, unless the strategy names its own
  const onStatusCodes = own.strategy?.on_status_codes ?? own.on_status_codes
  const strategy: StrategyNode = own.strategy === undefined
    ? { mode: "single" }
    : onStatusCodes === undefined
    ? own.strategy
    : { ...own.strategy, on_status_codes: onStatusCodes }
  const targets = own.targets ?? []
  return Effect.gen(function*() {
    const compiled: Array<CompiledTarget> = []
    for (const [index, child] of targets.entries()) {
      const childPath = `${path}.targets[${index}]`
      compiled.push({ path: childPath, node: child, dispatch: yield* compileNode(node, child, childPath) })
    }
    const combine = (yield* Strategies).table[strategy.mode]
    if (combine === undefined) {
      return yield* new InvalidRequest({
        message: `${path}.strategy.mode: "${strategy.mode}" is not available in this gateway`,
        param: `${path}.strategy.mode`
      })
    }
    return yield* combine(strategy, compiled, path)
  })
}

const compileLeaf = (node: ConfigNode, path: string): Effect.Effect<Dispatch, InvalidRequest, CompileServices> => {
  // a leaf named by a virtual key goes to the stored-credentials adapter, like an `@slug`
  const provider = node.provider ?? (node.virtual_key === undefined ? undefined : STORED_PROVIDER)
  if (provider === undefined) {
    const noProvider = new InvalidRequest({
      message: `${path}: names no provider (set provider, or strategy with targets)`,
      param: `${path}.provider`
    })
    if (node.prompt_id === undefined) return Effect.fail(noProvider)
    // unlabelled: the prompt stage, outermost, runs a leaf of the prompt's provider, which labels its answers
    return withStages({ ...node, provider: PROMPT_PROVIDER }, path, () => Effect.fail(noProvider))
  }
  const target: ProviderTarget = { ...node, provider }
  return Effect.gen(function*() {
    const upstream = yield* dispatchFor(target)
    const traced = (yield* Tracing.Enabled) ? PipelineSpans.attempt(provider, path, upstream) : upstream
    return labelled(yield* withStages(target, path, traced), provider, path)
  })
}

/** The leaf's stages around its upstream call, under its `override_params`. */
const withStages = (
  target: ProviderTarget,
  path: string,
  upstream: Dispatch
): Effect.Effect<Dispatch, InvalidRequest, Stages> =>
  Effect.gen(function*() {
    const traced = yield* Tracing.Enabled
    const middleware = []
    for (const stage of yield* (yield* Stages).ordered) {
      const own = yield* stage.factory(target, path)
      middleware.push(traced ? PipelineSpans.stage(stage.phase, path, own) : own)
    }
    return overridden(compose(upstream, ...middleware), target)
  })

/** Applies `override_params` to the provider-bound body. */
const overridden = (dispatch: Dispatch, target: ProviderTarget): Dispatch => {
  const overrides = target.override_params
  if (overrides === undefined || Object.keys(overrides).length === 0) return dispatch
  return (request) => dispatch(withBody(request, { ...request.body, ...overrides }))
}

/** Adds the headers that say which provider and which target answered, or failed. */
const labelled = (dispatch: Dispatch, provider: string, path: string): Dispatch => {
  const headers = { [PROVIDER_HEADER]: provider, [OPTION_INDEX_HEADER]: path }
  return (request) =>
    Effect.mapBoth(dispatch(request), {
      onSuccess: (response) => withHeaders(response, headers),
      onFailure: (error) => withGatewayHeaders(error, headers)
    })
}

/** Compiled configs by content key; bounded, since keys come from callers. */
export class ConfigCompiler extends Context.Service<ConfigCompiler, {
  /**
   * The Dispatch for the config `load` yields; `key` must identify the config's content (its
   * JSON text, or a stored id with its version). A config that fails to compile is not kept.
   */
  readonly dispatch: (
    key: string,
    load: Effect.Effect<ConfigNode, InvalidRequest>
  ) => Effect.Effect<Dispatch, InvalidRequest>
}>()("@switchyard/core/ConfigCompiler") {
  static readonly layer = (options?: { readonly capacity?: number }) =>
    Layer.effect(
      ConfigCompiler,
      Effect.gen(function*() {
        const context = yield* Effect.context<CompileServices>()
        const compiled = new LeastRecentlyUsed<string, Dispatch>(options?.capacity ?? 1024)
        return ConfigCompiler.of({
          dispatch: (key, load) => {
            const hit = compiled.get(key)
            if (hit !== undefined) return Effect.succeed(hit)
            // two concurrent misses may both compile: compiling is pure, and the later one wins
            return load.pipe(
              Effect.flatMap((node) => compile(node)),
              Effect.tap((dispatch) => Effect.sync(() => compiled.set(key, dispatch))),
              Effect.provideContext(context)
            )
          }
        })
      })
    )
}
