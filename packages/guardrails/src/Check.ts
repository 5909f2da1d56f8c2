/**
 * One check of a hook or guardrail: an id (`plugin.check`), a schema for its parameters, and a
 * function from the request/response context to a verdict. Writing a new check is one file that
 * calls {@link make}; the built-in `default` plugin is made of such files.
 */
import type { GatewayRequest } from "@switchyard/core"
import { Data, type Effect, Result, Schema } from "effect"

/** When the check runs: before the provider (request only) or after it (request and answer). */
export type EventType = "beforeRequestHook" | "afterRequestHook"

/** `chatComplete`, `complete` or `embed`: the request's endpoint in the plugin vocabulary. */
export type RequestType = "chatComplete" | "complete" | "embed"

/** What a check sees. `text` is the text under judgement: the last message before, the answer after. */
export interface CheckContext {
  readonly eventType: EventType
  readonly requestType: RequestType
  readonly request: {
    readonly body: GatewayRequest.JsonObject
    readonly text: string
    readonly stream: boolean
  }
  /** The answer; undefined before the provider was called. */
  readonly response: { readonly body: unknown; readonly text: string; readonly status: number } | undefined
  /** `x-gateway-metadata`. */
  readonly metadata: Readonly<Record<string, string>>
  /** Incoming request headers, lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  readonly traceId: string
  readonly workspaceId: string
}

/** The text a check judges: the answer's after the provider, the request's before. */
export const textOf = (context: CheckContext): string =>
  context.eventType === "afterRequestHook" && context.response !== undefined
    ? context.response.text
    : context.request.text

/**
 * How a mutator rewrites: `apply` runs on every text of the request (`all`: each message) or on
 * the last one only (`last`); on an answer it runs on each choice's content either way.
 */
export interface Rewrite {
  readonly scope: "all" | "last"
  readonly apply: (text: string) => string
}

/** A check's outcome; `data` must not hold the judged text (results may reach the client). */
export interface CheckResult {
  readonly verdict: boolean
  readonly explanation: string
  readonly data?: unknown
  readonly rewrite?: Rewrite | undefined
}

/** A check could not decide (a webhook down, a JWKS unreadable): it fails with this reason. */
export class CheckError extends Data.TaggedError("CheckError")<{ readonly message: string }> {}

/** What a check author writes. */
export interface Definition<P> {
  /** `plugin.check`, e.g. `default.regexMatch` or `acme.isPolite`. */
  readonly id: string
  readonly parameters: Schema.Decoder<P>
  readonly run: (context: CheckContext, parameters: P) => Effect.Effect<CheckResult, CheckError>
}

/** A check with its parameter type erased: parameters are decoded once, when a config is compiled. */
export interface Check {
  readonly id: string
  /** Decodes raw parameters into a runnable check, or says what is wrong with them. */
  readonly prepare: (
    parameters: unknown
  ) => Result.Result<(context: CheckContext) => Effect.Effect<CheckResult, CheckError>, string>
}

/**
 * Makes a check from its definition.
 *
 * @example
 * import { Check } from "@switchyard/guardrails"
 * import { Effect, Schema } from "effect"
 * export const isPolite = Check.make({
 *   id: "acme.isPolite",
 *   parameters: Schema.Struct({ word: Schema.String }),
 *   run: (context, { word }) =>
 *     Effect.succeed({ verdict: Check.textOf(context).includes(word), explanation: `says "${word}"` })
 * })
 */
export const make = <P>(definition: Definition<P>): Check => {
  const decode = Schema.decodeUnknownResult(definition.parameters)
  return {
    id: definition.id,
    prepare: (parameters) =>
      Result.match(decode(parameters ?? {}), {
        onFailure: (error) => Result.fail(error.message),
        onSuccess: (decoded) => Result.succeed((context: CheckContext) => definition.run(context, decoded))
      })
  }
}

/** `plugin.check`; an id without a dot names a check of the `default` plugin. */
export const qualify = (id: string): string => id.includes(".") ? id : `default.${id}`

/** Inverts a verdict when `not` is set, keeping the explanation honest. */
export const verdict = (
  holds: boolean,
  not: boolean | undefined,
  explanation: { readonly holds: string; readonly fails: string },
  data?: unknown
): CheckResult => {
  const passed = not === true ? !holds : holds
  return {
    verdict: passed,
    explanation: `${holds ? explanation.holds : explanation.fails}${not === true ? " (inverted by not)" : ""}`,
    ...(data === undefined ? {} : { data })
  }
}
