/**
 * Items of `input_guardrails` and `output_guardrails`: the id of a stored
 * guardrail, or an object whose members other than `id`, `deny`, `async`,
 * `on_fail` and `on_success` are checks (check id -> parameters object).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { DenyingVerdict, FeedbackVerdict } from "./Hooks.ts"
import { isNonEmptyString } from "./internal/Checks.ts"
import { openStruct } from "./internal/Structs.ts"

const known = new Set(["id", "deny", "async", "on_fail", "on_success"])

const isPlainObject = (value: unknown): boolean => typeof value === "object" && value !== null && !Array.isArray(value)

// The object form is open by design: every unknown member is a check, so the
// only rule for those members is that their parameters are an object.
const checksAreObjects = Schema.makeFilter((guardrail: { readonly [key: string]: unknown }) => {
  const issues: Array<Schema.FilterIssue> = []
  for (const [key, value] of Object.entries(guardrail)) {
    if (!known.has(key) && !isPlainObject(value)) {
      issues.push({ path: [key], issue: "must be an object (the parameters of check " + JSON.stringify(key) + ")" })
    }
  }
  return issues
})

const guardrail = <Verdict extends Schema.Top>(verdict: Verdict) =>
  Schema.Union([
    Schema.String.check(isNonEmptyString),
    openStruct({
      id: Schema.optionalKey(Schema.String),
      deny: Schema.optionalKey(Schema.Boolean),
      async: Schema.optionalKey(Schema.Boolean),
      on_fail: Schema.optionalKey(verdict),
      on_success: Schema.optionalKey(verdict)
    }).check(checksAreObjects)
  ]).annotate({ expected: "a guardrail id or a guardrail object" })

/**
 * An input guardrail; its `on_fail` / `on_success` hold `feedback` only
 * (denial is the top-level `deny`).
 *
 * @example
 * import { Schema } from "effect"
 * import { Guardrails } from "@switchyard/protocol"
 * const item = Schema.decodeUnknownSync(Guardrails.InputGuardrail)({
 *   deny: true,
 *   "default.wordCount": { minWords: 1, maxWords: 200 }
 * })
 *
 * @since 0.1.0
 */
export const InputGuardrail = guardrail(FeedbackVerdict)
/** @since 0.1.0 */
export type InputGuardrail = typeof InputGuardrail.Type

/** An output guardrail; its `on_fail` / `on_success` hold `feedback` and `deny`. @since 0.1.0 */
export const OutputGuardrail = guardrail(DenyingVerdict)
/** @since 0.1.0 */
export type OutputGuardrail = typeof OutputGuardrail.Type
