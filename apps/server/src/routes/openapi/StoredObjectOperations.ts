/** API keys, integrations, virtual keys, configs, guardrails and feedback. */
import { Feedback } from "@switchyard/guardrails"
import { json, listOf, type Operation } from "./OperationShapes.ts"

export const operations: Readonly<Record<string, Operation>> = {
  "POST /v1/api-keys": {
    tag: "API keys",
    summary: "Create an API key",
    description: "A key grants only what it holds: a scope the caller lacks, or another workspace, is a 403.",
    body: "CreateApiKey",
    answer: json("The key, with its secret in `key`, shown this once.")
  },
  "GET /v1/api-keys": { tag: "API keys", summary: "List API keys", answer: listOf("API keys, never secrets") },
  "DELETE /v1/api-keys/:id": { tag: "API keys", summary: "Revoke an API key", answer: json("The revoked key.") },
  "POST /v1/integrations": {
    tag: "Integrations",
    summary: "Create an integration",
    body: "CreateIntegration",
    answer: json("The integration, credentials masked."),
    errors: [409]
  },
  "GET /v1/integrations": { tag: "Integrations", summary: "List integrations", answer: listOf("integrations") },
  "GET /v1/integrations/:id": {
    tag: "Integrations",
    summary: "Get an integration",
    answer: json("The integration, credentials masked.")
  },
  "DELETE /v1/integrations/:id": {
    tag: "Integrations",
    summary: "Delete an integration",
    answer: json("The deleted integration.")
  },
  "POST /v1/virtual-keys": {
    tag: "Virtual keys",
    summary: "Create a virtual key",
    body: "CreateVirtualKey",
    answer: json("The virtual key, credentials masked.")
  },
  "GET /v1/virtual-keys": { tag: "Virtual keys", summary: "List virtual keys", answer: listOf("virtual keys") },
  "DELETE /v1/virtual-keys/:id": {
    tag: "Virtual keys",
    summary: "Delete a virtual key",
    answer: json("The deleted virtual key.")
  },
  "POST /v1/configs": {
    tag: "Configs",
    summary: "Create a config",
    body: "CreateConfig",
    answer: json("The stored config, with its id `pc-…`.")
  },
  "GET /v1/configs": { tag: "Configs", summary: "List configs", answer: listOf("configs") },
  "GET /v1/configs/:id": { tag: "Configs", summary: "Get a config", answer: json("The stored config.") },
  "PUT /v1/configs/:id": {
    tag: "Configs",
    summary: "Update a config",
    body: "UpdateConfig",
    answer: json("The stored config.")
  },
  "DELETE /v1/configs/:id": { tag: "Configs", summary: "Delete a config", answer: json("The deleted config.") },
  "POST /v1/guardrails": {
    tag: "Guardrails",
    summary: "Create a guardrail",
    body: "CreateGuardrail",
    answer: json("The stored guardrail, with its id.")
  },
  "GET /v1/guardrails": { tag: "Guardrails", summary: "List guardrails", answer: listOf("guardrails") },
  "GET /v1/guardrails/:id": { tag: "Guardrails", summary: "Get a guardrail", answer: json("The stored guardrail.") },
  "DELETE /v1/guardrails/:id": {
    tag: "Guardrails",
    summary: "Delete a guardrail",
    answer: json("The deleted guardrail.")
  },
  "POST /v1/feedback": {
    tag: "Feedback",
    summary: "Record feedback",
    body: "FeedbackRequest",
    answer: json("`{\"status\": \"success\", \"message\": \"feedback recorded\", \"feedback_ids\": [id]}`.")
  },
  "GET /v1/feedback": {
    tag: "Feedback",
    summary: "List feedback",
    query: Feedback.FeedbackQuery,
    answer: json("The feedback recorded against the trace id.")
  }
}
