/**
 * A failure the gateway did not expect (a defect: a thrown exception, a bug). It is logged with
 * its cause and the request's trace id, and answered as a 500 in the envelope, so a request
 * never ends without an answer and an operator can find why.
 */
import { GatewayError } from "@switchyard/core"
import { type Cause, Effect } from "effect"

/** Logs the cause at error and answers the error to send the client (which never sees the cause). */
export const report = (cause: Cause.Cause<unknown>, traceId: string): Effect.Effect<GatewayError.InternalError> =>
  Effect.logError("request failed unexpectedly", cause).pipe(
    Effect.annotateLogs({ trace_id: traceId }),
    Effect.as(
      new GatewayError.InternalError({
        message: `the gateway failed unexpectedly while answering this request (trace id ${traceId})`
      })
    )
  )
