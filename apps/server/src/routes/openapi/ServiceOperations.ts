/** The gateway's own routes (health, readiness, metrics, this description) and the model catalog. */
import { Schema } from "effect"
import { json, type Operation } from "./OperationShapes.ts"

const ModelsQuery = Schema.Struct({
  provider: Schema.optionalKey(Schema.String.annotate({ description: "Only this provider's models." }))
})

export const operations: Readonly<Record<string, Operation>> = {
  "GET /health": {
    tag: "Service",
    summary: "Liveness",
    answer: json("`{\"status\":\"ok\"}` once the server can serve.")
  },
  "GET /ready": {
    tag: "Service",
    summary: "Readiness",
    answer: json("`{\"status\": \"ready\", \"checks\"}` when the database (and Redis, when configured) answer."),
    errors: [503]
  },
  "GET /v1/openapi.json": {
    tag: "Service",
    summary: "This document",
    answer: json("The OpenAPI 3.1 description of every route.")
  },
  "GET /metrics": {
    tag: "Service",
    summary: "Metrics",
    description: "Every metric in Prometheus text format; `GATEWAY_METRICS=off` removes the route.",
    answer: { description: "The text exposition format.", mediaType: "text/plain" }
  },
  "GET /docs": {
    tag: "Service",
    summary: "This document, rendered",
    answer: { description: "A page that renders /v1/openapi.json.", mediaType: "text/html" }
  },
  "GET /docs/swagger-ui.css": {
    tag: "Service",
    summary: "The docs page's style sheet",
    answer: { description: "Swagger UI's style sheet.", mediaType: "text/css" }
  },
  "GET /docs/swagger-ui.js": {
    tag: "Service",
    summary: "The docs page's script",
    answer: { description: "Swagger UI, set to render /v1/openapi.json.", mediaType: "text/javascript" }
  },
  "GET /v1/models": {
    tag: "Models",
    summary: "List models",
    query: ModelsQuery,
    answer: json("The catalog in OpenAI's list shape, with context lengths and prices.")
  },
  "GET /v1/models/:id": {
    tag: "Models",
    summary: "Get a model",
    description: "When several providers serve the id, the first listed answers unless `provider` names one.",
    query: ModelsQuery,
    answer: json("One model object, as the list shows it.")
  }
}
