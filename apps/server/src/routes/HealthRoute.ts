/**
 * GET /health (liveness) and GET /ready (readiness), both without authentication. A load balancer
 * or orchestrator restarts a server whose /health fails, and only stops sending it traffic while
 * /ready fails: a database outage must not restart every replica.
 */
import { GatewayError } from "@switchyard/core"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import * as Readiness from "../Readiness.ts"

/** 200 once the server can serve. */
export const response = HttpServerResponse.jsonUnsafe({ status: "ok" })

/**
 * 200 `{status: "ready", checks}` when every store answers; otherwise 503 in the error envelope,
 * its message naming what is down, with the same `checks`.
 */
export const readiness: Effect.Effect<HttpServerResponse.HttpServerResponse, never, Readiness.Readiness> = Effect
  .gen(function*() {
    const checks = yield* (yield* Readiness.Readiness).check
    const down = Readiness.down(checks)
    if (down.length === 0) return HttpServerResponse.jsonUnsafe({ status: "ready", checks })
    const { body, status } = GatewayError.toHttp(
      new GatewayError.Unavailable({
        message: `not ready: ${down.join(" and ")} ${down.length === 1 ? "is" : "are"} down`
      })
    )
    return HttpServerResponse.jsonUnsafe({ ...body, checks }, { status })
  })
