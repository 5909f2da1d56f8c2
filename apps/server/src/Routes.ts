/**
 * The whole route table, top to bottom. The inference routes are the hot path and run on
 * node:http directly (NodeEdge); the rest go through Effect's HttpRouter. Scopes are checked
 * inside the handlers.
 */
import type { Authenticator } from "@switchyard/auth"
import { type Gateway, GatewayError } from "@switchyard/core"
import { Effect, type Layer } from "effect"
import { HttpRouter, type HttpServerRequest } from "effect/http"
import { fromGatewayError } from "./http/ErrorResponse.ts"
import type { NodeRoutes } from "./http/NodeEdge.ts"
import * as HealthRoute from "./routes/HealthRoute.ts"
import * as InferenceRoute from "./routes/InferenceRoute.ts"
import * as OpenApiRoute from "./routes/OpenApiRoute.ts"

/** The hot path: `METHOD /path` to a node:http handler. */
export const nodeRoutes = (
  options: InferenceRoute.InferenceRouteOptions
): Effect.Effect<NodeRoutes, never, Authenticator.Authenticator | Gateway.Gateway> =>
  Effect.gen(function*() {
    return new Map([
      ["POST /v1/chat/completions", yield* InferenceRoute.make("chat.completions", options)],
      ["POST /v1/completions", yield* InferenceRoute.make("completions", options)],
      ["POST /v1/embeddings", yield* InferenceRoute.make("embeddings", options)]
    ])
  })

/** Everything else. */
export const routerRoutes: Layer.Layer<never, never, HttpRouter.HttpRouter> = HttpRouter.use((router) =>
  Effect.gen(function*() {
    yield* router.add("GET", "/health", HealthRoute.response)
    yield* router.add("GET", "/v1/openapi.json", OpenApiRoute.document)
    yield* router.add("GET", "/docs", OpenApiRoute.docsPage)
    yield* router.add("*", "*", notFound)
  })
)

const notFound = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.succeed(
    fromGatewayError(
      new GatewayError.NotFound({ message: `no route for ${request.method} ${request.url}` }),
      request.headers
    )
  )
