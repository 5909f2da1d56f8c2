/**
 * `default.log {logURL, headers, timeout}`: records the context and always passes. With `logURL`
 * it POSTs `{request, response, eventType, traceId}` there (only to a host `GATEWAY_TRUSTED_HOSTS`
 * allows); without, it writes an Effect log line.
 */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { postJson } from "../Post.ts"

export const log = Check.make({
  id: "default.log",
  parameters: Schema.Struct({
    logURL: Schema.optionalKey(Schema.String),
    headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
    timeout: Schema.optionalKey(Schema.Number.check(Schema.isGreaterThan(0)))
  }),
  run: (context, { headers, logURL, timeout = 3000 }) => {
    const entry = {
      eventType: context.eventType,
      traceId: context.traceId,
      request: { json: context.request.body, text: context.request.text },
      response: context.response === undefined
        ? undefined
        : { json: context.response.body, status: context.response.status }
    }
    const written = logURL === undefined
      ? Effect.logInfo("guardrails log check").pipe(Effect.annotateLogs({ guardrailLog: entry }))
      : Effect.asVoid(postJson(logURL, entry, { headers, timeoutMs: timeout, field: "logURL" }))
    return Effect.as(written, {
      verdict: true,
      explanation: logURL === undefined ? "logged" : `logged to ${logURL}`,
      data: { logged: true }
    })
  }
})
