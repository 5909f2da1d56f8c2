/**
 * A target's hooks and guardrails, read from its config once when the config is compiled: every
 * form (long, shorthand object, stored id) becomes one {@link Hook} with its checks' parameters
 * already decoded. Stored guardrails are named here and fetched per request (they belong to a
 * workspace).
 */
import { GatewayError, type ProviderTarget } from "@switchyard/core"
import { Guardrails, Hooks } from "@switchyard/protocol"
import { Effect, Result, Schema } from "effect"
import type * as Check from "../Check.ts"
import { qualify } from "../Check.ts"

export interface PreparedCheck {
  readonly id: string
  /** `failOnError: false` in the parameters: a check that cannot decide passes. */
  readonly failOnError: boolean
  readonly run: (context: Check.CheckContext) => Effect.Effect<Check.CheckResult, Check.CheckError>
}

export interface Verdict {
  readonly deny: boolean
  readonly feedback: Hooks.Feedback | undefined
}

export interface Hook {
  readonly id: string
  readonly type: "guardrail" | "mutator"
  readonly async: boolean
  readonly checks: ReadonlyArray<PreparedCheck>
  readonly onFail: Verdict
  readonly onSuccess: Verdict
}

/** A hook, or the id of a stored guardrail still to be fetched. */
export type PlanItem =
  | { readonly _tag: "Hook"; readonly hook: Hook }
  | { readonly _tag: "Stored"; readonly id: string; readonly path: string }

export interface Plan {
  readonly before: ReadonlyArray<PlanItem>
  readonly after: ReadonlyArray<PlanItem>
}

/** A guardrail as stored by `POST /v1/guardrails`. */
export interface StoredGuardrail {
  readonly id: string
  readonly name?: string | undefined
  readonly checks: ReadonlyArray<{ readonly id: string; readonly parameters?: { readonly [key: string]: unknown } }>
  readonly deny?: boolean | undefined
  readonly async?: boolean | undefined
  readonly on_fail?: Partial<Verdict> | undefined
  readonly on_success?: Partial<Verdict> | undefined
}

export type Registry = ReadonlyMap<string, Check.Check>

const invalid = (message: string, param: string) => new GatewayError.InvalidRequest({ message, param })

/** Looks a check up and decodes its parameters. */
export const prepareCheck = (
  registry: Registry,
  rawId: string,
  parameters: unknown,
  path: string
): Result.Result<PreparedCheck, GatewayError.InvalidRequest> => {
  const id = qualify(rawId)
  const check = registry.get(id)
  if (check === undefined) return Result.fail(invalid(`${path}: unknown check "${id}"`, path))
  const prepared = check.prepare(parameters)
  if (Result.isFailure(prepared)) {
    return Result.fail(invalid(`${path}: parameters of ${id}: ${prepared.failure}`, path))
  }
  const failOnError = !(typeof parameters === "object" && parameters !== null &&
    "failOnError" in parameters && parameters.failOnError === false)
  return Result.succeed({ id, failOnError, run: prepared.success })
}

const prepareAll = (
  registry: Registry,
  checks: ReadonlyArray<readonly [id: string, parameters: unknown, path: string]>
): Result.Result<ReadonlyArray<PreparedCheck>, GatewayError.InvalidRequest> => {
  const prepared: Array<PreparedCheck> = []
  for (const [id, parameters, path] of checks) {
    const result = prepareCheck(registry, id, parameters, path)
    if (Result.isFailure(result)) return Result.fail(result.failure)
    prepared.push(result.success)
  }
  return Result.succeed(prepared)
}

const verdictOf = (
  verdict: { readonly deny?: boolean | undefined; readonly feedback?: Hooks.Feedback | undefined } | undefined
): Verdict => ({
  deny: verdict?.deny === true,
  feedback: verdict?.feedback
})

const KNOWN = new Set(["id", "deny", "async", "on_fail", "on_success"])

/** The object form of a guardrail: every member other than the known ones is a check. */
const guardrailHook = (
  registry: Registry,
  guardrail: { readonly [key: string]: unknown },
  fallbackId: string,
  path: string
): Result.Result<Hook, GatewayError.InvalidRequest> => {
  const decoded = decodeGuardrailSettings(guardrail)
  const settings = Result.isSuccess(decoded) ? decoded.success : {}
  const checks = Object.entries(guardrail).filter(([key]) => !KNOWN.has(key)).map((
    [id, parameters]
  ) => [id, parameters, `${path}["${id}"]`] as const)
  return Result.map(prepareAll(registry, checks), (prepared) => ({
    id: settings.id ?? fallbackId,
    type: "guardrail" as const,
    async: settings.async === true,
    checks: prepared,
    // `deny` of the object form is the failure's; `on_fail.deny` says the same
    onFail: verdictOf({ ...settings.on_fail, deny: settings.deny === true || settings.on_fail?.deny === true }),
    onSuccess: verdictOf(settings.on_success)
  }))
}

const Settings = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  deny: Schema.optionalKey(Schema.Boolean),
  async: Schema.optionalKey(Schema.Boolean),
  on_fail: Schema.optionalKey(Hooks.DenyingVerdict),
  on_success: Schema.optionalKey(Hooks.DenyingVerdict)
})
const decodeGuardrailSettings = Schema.decodeUnknownResult(Settings)

/** The hook a stored guardrail describes; its check parameters are decoded here. */
export const storedHook = (
  registry: Registry,
  stored: StoredGuardrail,
  path: string
): Result.Result<Hook, GatewayError.InvalidRequest> =>
  Result.map(
    prepareAll(
      registry,
      stored.checks.map((check, index) => [check.id, check.parameters ?? {}, `${path}.checks[${index}]`] as const)
    ),
    (checks) => ({
      id: stored.id,
      type: "guardrail" as const,
      async: stored.async === true,
      checks,
      onFail: verdictOf({
        feedback: stored.on_fail?.feedback,
        deny: stored.deny === true || stored.on_fail?.deny === true
      }),
      onSuccess: verdictOf({ feedback: stored.on_success?.feedback, deny: stored.on_success?.deny === true })
    })
  )

type LongHook = Hooks.BeforeRequestHook | Hooks.AfterRequestHook

const longHook = (registry: Registry, hook: LongHook, path: string): Result.Result<Hook, GatewayError.InvalidRequest> =>
  Result.map(
    prepareAll(
      registry,
      (hook.checks ?? []).map((check, index) => [check.id, check.parameters, `${path}.checks[${index}]`] as const)
    ),
    (checks) => ({
      id: hook.id,
      type: hook.type ?? "guardrail",
      async: "async" in hook && hook.async === true,
      checks,
      onFail: verdictOf(hook.on_fail),
      onSuccess: verdictOf(hook.on_success)
    })
  )

/**
 * Reads a target's hooks and guardrails (decoded with its config); unknown checks and bad check
 * parameters are 400s.
 */
export const planOf = (
  registry: Registry,
  target: ProviderTarget.ProviderTarget,
  path: string
): Effect.Effect<Plan, GatewayError.InvalidRequest> => {
  const config = target
  const items = (
    hooks: ReadonlyArray<LongHook>,
    guardrails: ReadonlyArray<Guardrails.InputGuardrail | Guardrails.OutputGuardrail>,
    hooksField: string,
    guardrailsField: string
  ): Result.Result<ReadonlyArray<PlanItem>, GatewayError.InvalidRequest> => {
    const plan: Array<PlanItem> = []
    for (const [index, hook] of hooks.entries()) {
      const result = longHook(registry, hook, `${path}.${hooksField}[${index}]`)
      if (Result.isFailure(result)) return Result.fail(result.failure)
      plan.push({ _tag: "Hook", hook: result.success })
    }
    for (const [index, guardrail] of guardrails.entries()) {
      const itemPath = `${path}.${guardrailsField}[${index}]`
      if (typeof guardrail === "string") {
        plan.push({ _tag: "Stored", id: guardrail, path: itemPath })
        continue
      }
      const result = guardrailHook(registry, guardrail, `${guardrailsField}[${index}]`, itemPath)
      if (Result.isFailure(result)) return Result.fail(result.failure)
      plan.push({ _tag: "Hook", hook: result.success })
    }
    return Result.succeed(plan)
  }
  const before = items(
    config.before_request_hooks ?? [],
    config.input_guardrails ?? [],
    "before_request_hooks",
    "input_guardrails"
  )
  if (Result.isFailure(before)) return Effect.fail(before.failure)
  const after = items(
    config.after_request_hooks ?? [],
    config.output_guardrails ?? [],
    "after_request_hooks",
    "output_guardrails"
  )
  if (Result.isFailure(after)) return Effect.fail(after.failure)
  return Effect.succeed({ before: before.success, after: after.success })
}

export const isEmpty = (plan: Plan): boolean => plan.before.length === 0 && plan.after.length === 0
