/**
 * `default.webhook {webhookURL, headers, timeout = 3000}`: POSTs `{request, response, eventType}`
 * to a URL and reads `{verdict, data}`. A slow (past `timeout` ms), failing or unreadable webhook
 * fails the check with the reason, unless `failOnError: false`; so does one whose host
 * `GATEWAY_TRUSTED_HOSTS` does not allow, which is never connected to.
 */
import { Effect, Result, Schema } from "effect"
import * as Check from "../../Check.ts"
import { postJson } from "../Post.ts"

const Reply = Schema.Struct({ verdict: Schema.Boolean, data: Schema.optionalKey(Schema.Unknown) })
const decodeReply = Schema.decodeUnknownResult(Reply)

export const webhook = Check.make({
  id: "default.webhook",
  parameters: Schema.Struct({
    webhookURL: Schema.String,
    headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
    timeout: Schema.optionalKey(Schema.Number.check(Schema.isGreaterThan(0)))
  }),
  run: (context, { headers, timeout = 3000, webhookURL }) =>
    postJson(webhookURL, {
      request: { json: context.request.body, text: context.request.text },
      response: context.response === undefined
        ? undefined
        : { json: context.response.body, text: context.response.text, status: context.response.status },
      eventType: context.eventType
    }, { headers, timeoutMs: timeout, field: "webhookURL" }).pipe(
      Effect.flatMap((reply) =>
        Result.match(decodeReply(reply), {
          onFailure: () =>
            Effect.fail(new Check.CheckError({ message: `${webhookURL}: the reply is not {verdict, data}` })),
          onSuccess: ({ data, verdict }) =>
            Effect.succeed({
              verdict,
              explanation: `the webhook answered ${verdict ? "pass" : "fail"}`,
              ...(data === undefined ? {} : { data })
            })
        })
      )
    )
})
