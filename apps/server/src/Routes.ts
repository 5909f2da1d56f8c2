/**
 * The whole route table, top to bottom. Each route names its handler; scopes are checked inside
 * the handlers (see the auth package for the table of scopes).
 */
import type { Authenticator } from "@switchyard/auth"
import { type Gateway, GatewayError } from "@switchyard/core"
import { Effect, type Layer } from "effect"
import { HttpRouter, type HttpServerRequest } from "effect/http"
import { fromGatewayError } from "./http/ErrorResponse.ts"
import * as HealthRoute from "./routes/HealthRoute.ts"
import * as InferenceRoute from "./routes/InferenceRoute.ts"
import * as OpenApiRoute from "./routes/OpenApiRoute.ts"

export const layer = (
  options: InferenceRoute.InferenceRouteOptions
): Layer.Layer<never, never, HttpRouter.HttpRouter | Authenticator.Authenticator | Gateway.Gateway> =>
  HttpRouter.use((router) =>
    Effect.gen(function*() {
      yield* router.add("GET", "/health", HealthRoute.response)
      yield* router.add("GET", "/v1/openapi.json", OpenApiRoute.document)
      yield* router.add("GET", "/docs", OpenApiRoute.docsPage)
      yield* router.add("POST", "/v1/chat/completions", yield* InferenceRoute.make("chat.completions", options))
      yield* router.add("POST", "/v1/completions", yield* InferenceRoute.make("completions", options))
      yield* router.add("POST", "/v1/embeddings", yield* InferenceRoute.make("embeddings", options))
      yield* router.add("*", "*", notFound)
    })
  )

const notFound = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.succeed(
    fromGatewayError(new GatewayError.NotFound({ message: `no route for ${request.method} ${request.url}` }))
  )
