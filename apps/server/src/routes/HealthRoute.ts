/** GET /health: 200 once the server can serve; no authentication. */
import { HttpServerResponse } from "effect/http"

export const response = HttpServerResponse.jsonUnsafe({ status: "ok" })
