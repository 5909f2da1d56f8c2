import { Check } from "@switchyard/guardrails"
import { Effect, Schema } from "effect"

export const isPolite = Check.make({
  id: "acme.isPolite",
  parameters: Schema.Struct({ word: Schema.String }),
  run: (context, { word }) =>
    Effect.succeed({ verdict: Check.textOf(context).includes(word), explanation: `says "${word}"` })
})
