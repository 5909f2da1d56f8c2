/**
 * `default.modelRules {rules: {defaults, metadata}, not}`: the models allowed are those the
 * request's metadata unlocks (`metadata: {team: {ml: ["gpt-4o"]}}` allows gpt-4o when
 * `x-gateway-metadata` has `team: "ml"`), or `defaults` when no metadata rule matches.
 */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { modelOf } from "./ModelWhitelist.ts"
import { Not } from "./Parameters.ts"

const Models = Schema.Array(Schema.String)

export const modelRules = Check.make({
  id: "default.modelRules",
  parameters: Schema.Struct({
    rules: Schema.Struct({
      defaults: Schema.optionalKey(Models),
      metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.Record(Schema.String, Models)))
    }),
    not: Not
  }),
  run: (context, { not, rules }) =>
    Effect.sync(() => {
      const unlocked = new Set<string>()
      for (const [key, byValue] of Object.entries(rules.metadata ?? {})) {
        const value = context.metadata[key]
        for (const model of (value === undefined ? undefined : byValue[value]) ?? []) unlocked.add(model)
      }
      const allowed = unlocked.size > 0 ? [...unlocked] : rules.defaults ?? []
      const model = modelOf(context)
      return Check.verdict(model !== undefined && allowed.includes(model), not, {
        holds: `model "${model}" is allowed by the rules`,
        fails: `model "${model ?? "(none)"}" is not allowed by the rules`
      }, { allowed })
    })
})
