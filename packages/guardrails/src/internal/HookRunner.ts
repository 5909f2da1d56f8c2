/**
 * Runs hooks: checks of one hook in parallel, hooks in order, each seeing the body the mutators
 * before it wrote. A check that fails or dies is reported with its error and fails (passes with
 * `failOnError: false`); nothing a check does can fail the request itself.
 */
import { Cause, Clock, Effect } from "effect"
import type * as Check from "../Check.ts"
import type { FeedbackStore } from "../Feedback.ts"
import type { CheckOutcome, HookOutcome } from "../HookResults.ts"
import type { Hook, PreparedCheck } from "./HookPlan.ts"

const messageOf = (cause: Cause.Cause<Check.CheckError>): string => {
  const error = Cause.squash(cause)
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
    return error.message
  }
  return String(error)
}

interface Ran {
  readonly outcome: CheckOutcome
  readonly rewrite: Check.Rewrite | undefined
}

const runCheck = (check: PreparedCheck, context: Check.CheckContext): Effect.Effect<Ran> =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const result = yield* Effect.suspend(() => check.run(context)).pipe(
      Effect.map((result) => ({ result, error: undefined })),
      Effect.catchCause((cause) => Effect.succeed({ result: undefined, error: messageOf(cause) }))
    )
    const execution_time = (yield* Clock.currentTimeMillis) - start
    if (result.result === undefined) {
      const error = result.error ?? "unknown error"
      return {
        outcome: {
          id: check.id,
          verdict: !check.failOnError,
          explanation: `the check could not decide: ${error}`,
          error,
          execution_time
        },
        rewrite: undefined
      }
    }
    const { data, explanation, rewrite, verdict } = result.result
    return {
      outcome: { id: check.id, verdict, explanation, ...(data === undefined ? {} : { data }), execution_time },
      rewrite
    }
  })

export interface HookRun {
  readonly outcome: HookOutcome
  readonly rewrites: ReadonlyArray<Check.Rewrite>
}

/** Runs one hook's checks in parallel and records its feedback. */
export const runHook = (
  hook: Hook,
  context: Check.CheckContext,
  feedback: FeedbackStore["Service"]
): Effect.Effect<HookRun> =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const ran = yield* Effect.forEach(hook.checks, (check) => runCheck(check, context), { concurrency: "unbounded" })
    const verdict = ran.every((r) => r.outcome.verdict)
    const chosen = verdict ? hook.onSuccess : hook.onFail
    if (chosen.feedback !== undefined) {
      yield* feedback.record({
        workspaceId: context.workspaceId,
        traceId: context.traceId,
        value: chosen.feedback.value ?? (verdict ? 5 : -5),
        weight: chosen.feedback.weight ?? 1,
        metadata: chosen.feedback.metadata ?? {},
        source: "hook",
        hookId: hook.id
      })
    }
    const outcome: HookOutcome = {
      id: hook.id,
      type: hook.type,
      verdict,
      deny: chosen.deny,
      async: hook.async,
      checks: ran.map((r) => r.outcome),
      ...(chosen.feedback === undefined ? {} : { feedback: chosen.feedback }),
      execution_time: (yield* Clock.currentTimeMillis) - start
    }
    return { outcome, rewrites: ran.flatMap((r) => r.rewrite === undefined ? [] : [r.rewrite]) }
  })

/**
 * Runs hooks in order over a value the mutators may rewrite; stops at the first hook that
 * denies. Async hooks are started detached on the value as it was and never waited for.
 */
export const runHooks = <A>(
  hooks: ReadonlyArray<Hook>,
  initial: A,
  contextOf: (value: A) => Check.CheckContext,
  rewrite: (value: A, rewrite: Check.Rewrite) => A,
  feedback: FeedbackStore["Service"]
): Effect.Effect<{ readonly value: A; readonly outcomes: ReadonlyArray<HookOutcome>; readonly denied: boolean }> =>
  Effect.gen(function*() {
    let value = initial
    const outcomes: Array<HookOutcome> = []
    for (const hook of hooks) {
      if (hook.async) {
        yield* Effect.forkDetach(runHook(hook, contextOf(value), feedback))
        continue
      }
      const run = yield* runHook(hook, contextOf(value), feedback)
      outcomes.push(run.outcome)
      if (run.outcome.deny) return { value, outcomes, denied: true }
      for (const r of run.rewrites) value = rewrite(value, r)
    }
    return { value, outcomes, denied: false }
  })
