/** `default.modelWhitelist {models, not}`: the request's `model` is one of `models`. */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { Not } from "./Parameters.ts"

export const modelOf = (context: Check.CheckContext): string | undefined => {
  const model = context.request.body.model
  return typeof model === "string" ? model : undefined
}

export const modelWhitelist = Check.make({
  id: "default.modelWhitelist",
  parameters: Schema.Struct({ models: Schema.Array(Schema.String), not: Not }),
  run: (context, { models, not }) =>
    Effect.sync(() => {
      const model = modelOf(context)
      return Check.verdict(model !== undefined && models.includes(model), not, {
        holds: `model "${model}" is allowed`,
        fails: `model "${model ?? "(none)"}" is not in the list`
      })
    })
})
