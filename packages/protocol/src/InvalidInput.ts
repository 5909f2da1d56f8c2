/**
 * The one error a decode of client input fails with, and the decoders that
 * produce it. `@switchyard/core` maps it to a 400 with
 * `{ error: { message, type: "invalid_request_error", param, code: null } }`.
 *
 * @since 0.1.0
 */
import { Effect, Result, Schema } from "effect"
import type { SchemaAST } from "effect"
import * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"
import { firstProblem } from "./internal/Problem.ts"

/**
 * Annotation naming the member that tells a union's variants apart (`type` of a content block):
 * when no variant matches, the error names that member and the values it may take. For the
 * schemas of other wire formats (`@switchyard/messages-format`).
 *
 * @since 0.3.0
 */
export { discriminatorAnnotation } from "./internal/Problem.ts"

/**
 * Input that broke a rule of the wire format.
 *
 * - `param`: path of the offending member, e.g. `messages[0].role` or
 *   `config.targets[1].retry.attempts`; `null` when the whole body is at fault.
 * - `message`: that path and the rule in plain words, e.g.
 *   `temperature: must be between 0 and 2 (got 3)`.
 *
 * @example
 * import { InvalidInput } from "@switchyard/protocol"
 * const error = new InvalidInput.InvalidInput({ message: "n: must be an integer", param: "n" })
 *
 * @since 0.1.0
 */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  message: Schema.String,
  param: Schema.NullOr(Schema.String)
}) {}

/** Options of {@link decodeInput}. */
export interface DecodeOptions {
  /** Name of the decoded value, prefixed to every `param` (`"config"` gives `config.retry.attempts`). */
  readonly root?: string
}

// Inputs are echoed into messages only as numbers (see internal/Problem.ts).
const parseOptions: SchemaAST.ParseOptions = { reportInput: true }

/**
 * Builds a synchronous decoder that answers a `Result`. Build it once, at
 * module level: the schema is compiled on the first call and reused.
 *
 * @example
 * import { ChatCompletionRequest, InvalidInput } from "@switchyard/protocol"
 * const decode = InvalidInput.decodeInputResult(ChatCompletionRequest.ChatCompletionRequest)
 * const result = decode({ model: "m", messages: [] })
 * // Failure: InvalidInput { param: "messages", message: "messages: must have at least 1 item" }
 *
 * @since 0.1.0
 */
export const decodeInputResult = <S extends Schema.Decoder<unknown>>(
  schema: S,
  options?: DecodeOptions
): (input: unknown) => Result.Result<S["Type"], InvalidInput> => {
  // Effect's JIT compiles the schema into one plain function for valid input (measured on a
  // chat body: 3.9 µs and ~12 KB of garbage interpreted, 0.44 µs compiled); invalid input
  // still goes through the interpreter, which names the path and the rule.
  SchemaJITCompiler.enable(schema.ast)
  const decode = Schema.decodeUnknownResult(schema, parseOptions)
  const root = options?.root
  return (input) => Result.mapError(decode(input), (error) => toInvalidInput(error.issue, root))
}

/**
 * Builds a decoder that answers an `Effect` failing with {@link InvalidInput}.
 *
 * @example
 * import { Effect } from "effect"
 * import { GatewayConfig, InvalidInput } from "@switchyard/protocol"
 * const decodeConfig = InvalidInput.decodeInput(GatewayConfig.GatewayConfig, { root: "config" })
 * const program = decodeConfig({ retry: { attempts: 9 } })
 * // fails with "config.retry.attempts: must be between 0 and 5 (got 9)"
 *
 * @since 0.1.0
 */
export const decodeInput = <S extends Schema.Decoder<unknown>>(
  schema: S,
  options?: DecodeOptions
): (input: unknown) => Effect.Effect<S["Type"], InvalidInput> => {
  const decode = decodeInputResult(schema, options)
  return (input) => Effect.fromResult(decode(input))
}

/**
 * The `param` string of a path: keys joined with dots, indexes and keys that
 * are not identifiers in brackets (`metadata["x-team"]`).
 *
 * @since 0.1.0
 */
export const formatParam = (root: string | undefined, path: ReadonlyArray<PropertyKey>): string | null => {
  let out = root ?? ""
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`
    else if (typeof segment === "string" && identifier.test(segment)) out += out === "" ? segment : `.${segment}`
    else out += `[${JSON.stringify(String(segment))}]`
  }
  return out === "" ? null : out
}

const identifier = /^[A-Za-z_$][\w$]*$/

const toInvalidInput = (issue: Parameters<typeof firstProblem>[0], root: string | undefined): InvalidInput => {
  const problem = firstProblem(issue)
  const param = formatParam(root, problem.path)
  return new InvalidInput({ message: `${param ?? "body"}: ${problem.message}`, param })
}
