/**
 * `conditional`: the `conditions` are tried in order, and the first whose `query` matches the
 * request names the target (by its `name`) that answers; when none matches, the target named by
 * `default`. No match and no default is an `InvalidRequest` (400). Queries are compiled once,
 * with the config; see {@link ConditionQuery}.
 */
import { type Dispatch, GatewayError, type Strategy } from "@switchyard/core"
import { Effect } from "effect"
import * as ConditionQuery from "./ConditionQuery.ts"
import { labelFailures, noTargets } from "./internal/TargetFailure.ts"

interface Rule {
  readonly matches: ConditionQuery.Matcher
  readonly dispatch: Dispatch.Dispatch<never>
}

/**
 * @example
 * import { ConfigCompiler, Strategy } from "@switchyard/core"
 * import { ConditionalStrategy } from "@switchyard/routing"
 * import { Effect } from "effect"
 * const config = {
 *   strategy: {
 *     mode: "conditional" as const,
 *     conditions: [{ query: { "metadata.plan": "pro" }, then: "smart" }],
 *     default: "cheap"
 *   },
 *   targets: [{ name: "smart", provider: "openai", api_key: "sk-1" }, { name: "cheap", provider: "groq", api_key: "gsk-1" }]
 * }
 * const dispatch = ConfigCompiler.compile(config).pipe(
 *   Effect.provideService(Strategy.Strategies, { conditional: ConditionalStrategy.conditional })
 * ) // needs a ProviderRegistry; `x-gateway-metadata: {"plan":"pro"}` goes to openai, the rest to groq
 */
export const conditional: Strategy.StrategyCompiler = (strategy, targets, path) =>
  Effect.gen(function*() {
    if (targets.length === 0) return yield* noTargets(path)
    // names are not inherited, so a target's own name is the one conditions refer to
    const named = new Map<string, Dispatch.Dispatch<never>>()
    for (const target of targets) {
      const name = target.node.name
      if (name !== undefined && !named.has(name)) named.set(name, labelFailures(target))
    }
    const targetNamed = (name: string, param: string) => {
      const dispatch = named.get(name)
      return dispatch === undefined
        ? Effect.fail(
          new GatewayError.InvalidRequest({
            message: `${param}: must name a target (no target is named ${JSON.stringify(name)})`,
            param
          })
        )
        : Effect.succeed(dispatch)
    }
    const rules: Array<Rule> = []
    for (const [index, condition] of (strategy.conditions ?? []).entries()) {
      const at = `${path}.strategy.conditions[${index}]`
      const dispatch = yield* targetNamed(condition.then, `${at}.then`)
      rules.push({ matches: yield* ConditionQuery.compile(condition.query, `${at}.query`), dispatch })
    }
    const otherwise = strategy.default === undefined
      ? undefined
      : yield* targetNamed(strategy.default, `${path}.strategy.default`)
    const noMatch = Effect.fail(
      new GatewayError.InvalidRequest({
        message: `${path}.strategy: no condition matched the request and there is no default target`,
        param: `${path}.strategy.default`
      })
    )
    // evaluated when the effect runs, so a library fault becomes a defect rather than a throw
    const dispatch: Dispatch.Dispatch<never> = (request) =>
      Effect.suspend(() => {
        const view = ConditionQuery.viewOf(request)
        for (const rule of rules) if (rule.matches(view)) return rule.dispatch(request)
        return otherwise === undefined ? noMatch : otherwise(request)
      })
    return dispatch
  })
