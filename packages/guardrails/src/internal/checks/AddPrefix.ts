/**
 * Mutator `default.addPrefix {prefix}`: puts `prefix` before the last message (request) or before
 * each choice's content (answer).
 */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"

export const addPrefix = Check.make({
  id: "default.addPrefix",
  parameters: Schema.Struct({ prefix: Schema.String }),
  run: (_context, { prefix }) =>
    Effect.succeed(
      {
        verdict: true,
        explanation: "prefix added",
        rewrite: { scope: "last", apply: (text: string) => `${prefix}${text}` }
      } satisfies Check.CheckResult
    )
})
