/**
 * The whole route table, top to bottom, with the scope each route needs (extensions.md,
 * "Authentication and scopes"). The inference routes are the hot path and run on node:http
 * directly (NodeEdge); the rest go through Effect's HttpRouter. Both follow the same edge rules
 * (http/Edge.ts): authentication, scopes, body limits, the error envelope and the trace id.
 */
import type { Runs, ThreadStore } from "@switchyard/assistants"
import type { ApiKeys, Authenticator, ServerSecret } from "@switchyard/auth"
import type { Batches } from "@switchyard/batches"
import type { CircuitBoard } from "@switchyard/circuit-breaker"
import { ConsolePage } from "@switchyard/console"
import type { Endpoint, Gateway, GatewayError, Principal, ProviderRegistry } from "@switchyard/core"
import type { FileStore } from "@switchyard/files"
import type { Feedback, StoredGuardrails } from "@switchyard/guardrails"
import type { PromptStore } from "@switchyard/prompts"
import type { Integrations, StoredConfigs, VirtualKeys } from "@switchyard/provider-access"
import type { RequestLog, RequestLogStore } from "@switchyard/request-log"
import type { ResponseStore } from "@switchyard/responses-format"
import type { RatePolicies, UsageCounters, UsagePolicies } from "@switchyard/usage-limits"
import { Effect, type Layer } from "effect"
import { HttpRouter, type HttpServerResponse } from "effect/http"
import type { BodyDeadlines } from "./http/BodyDeadlines.ts"
import type { NodeHandler, NodeRoutes } from "./http/NodeEdge.ts"
import * as Readiness from "./Readiness.ts"
import * as AssistantRoutes from "./routes/AssistantRoutes.ts"
import * as BatchRoutes from "./routes/BatchRoutes.ts"
import * as CircuitRoutes from "./routes/CircuitRoutes.ts"
import * as FileRoutes from "./routes/FileRoutes.ts"
import * as GuardrailRoutes from "./routes/GuardrailRoutes.ts"
import * as HealthRoute from "./routes/HealthRoute.ts"
import * as InferenceRoute from "./routes/InferenceRoute.ts"
import * as LogRoutes from "./routes/LogRoutes.ts"
import * as ManagementRoute from "./routes/ManagementRoute.ts"
import * as MessagesRoute from "./routes/MessagesRoute.ts"
import * as MetricsRoute from "./routes/MetricsRoute.ts"
import * as ModelRoutes from "./routes/ModelRoutes.ts"
import * as OpenApiRoute from "./routes/OpenApiRoute.ts"
import * as PromptRoutes from "./routes/PromptRoutes.ts"
import * as RateLimitRoutes from "./routes/RateLimitRoutes.ts"
import * as ResponsesRoute from "./routes/ResponsesRoute.ts"
import * as Stored from "./routes/StoredObjectRoutes.ts"
import * as UsageLimitRoutes from "./routes/UsageLimitRoutes.ts"

type Method = "GET" | "POST" | "PUT" | "DELETE"
type StoredServices =
  | ApiKeys.ApiKeys
  | Integrations.Integrations
  | VirtualKeys.VirtualKeys
  | StoredConfigs.StoredConfigs
  | StoredGuardrails.StoredGuardrails
  | Feedback.FeedbackStore
  | UsagePolicies.UsagePolicies
  | UsageCounters.UsageCounters
  | RatePolicies.RatePolicies
  | PromptStore.PromptStore
  | ThreadStore.ThreadStore
  | Runs.Runs
  | FileStore.FileStore
  | Batches.Batches
  | CircuitBoard.CircuitBoard
  // the request log: its routes write what is buffered, then read
  | RequestLog.RequestLog
  | RequestLogStore.RequestLogStore
  | ResponseStore.ResponseStore
  // threads keep their provider selection sealed
  | ServerSecret.ServerSecret
  // prompt completions run the pipeline
  | Gateway.Gateway
  // management bodies are read under the server's body time limit
  | BodyDeadlines

/** What a hot-path route of another client format needs to build its handler. */
type FormatServices =
  | Authenticator.Authenticator
  | Gateway.Gateway
  | BodyDeadlines
  | ResponseStore.ResponseStore
  // count_tokens asks the selected provider's adapter for its own count
  | ProviderRegistry.ProviderRegistry
  | StoredConfigs.StoredConfigs

export type Route =
  | {
    readonly method: "POST"
    readonly path: HttpRouter.PathInput
    readonly scope: "completions"
    readonly inference: Endpoint.Endpoint
  }
  | {
    /** Another client format on the hot path (Responses): it runs the chat pipeline itself. */
    readonly method: "POST"
    readonly path: HttpRouter.PathInput
    readonly scope: "completions"
    readonly format: (
      options: InferenceRoute.InferenceRouteOptions
    ) => Effect.Effect<NodeHandler, never, FormatServices>
  }
  | {
    readonly method: Method
    readonly path: HttpRouter.PathInput
    readonly scope: Principal.Scope
    readonly handler: (
      input: ManagementRoute.RouteInput
    ) => Effect.Effect<unknown, GatewayError.GatewayError, StoredServices>
  }
  | {
    readonly method: "GET"
    readonly path: HttpRouter.PathInput
    readonly scope: null
    readonly public: HttpServerResponse.HttpServerResponse | Effect.Effect<HttpServerResponse.HttpServerResponse>
  }
  | {
    readonly method: "GET"
    readonly path: HttpRouter.PathInput
    readonly scope: null
    /** A public answer that asks the stores how they are. */
    readonly readiness: Effect.Effect<HttpServerResponse.HttpServerResponse, never, Readiness.Readiness>
  }

export const table: ReadonlyArray<Route> = [
  { method: "GET", path: "/health", scope: null, public: HealthRoute.response },
  { method: "GET", path: "/ready", scope: null, readiness: HealthRoute.readiness },
  { method: "GET", path: "/metrics", scope: null, public: MetricsRoute.response },
  { method: "GET", path: "/v1/openapi.json", scope: null, public: OpenApiRoute.document(() => table) },
  { method: "GET", path: "/docs", scope: null, public: OpenApiRoute.docsPage },
  { method: "GET", path: "/docs/swagger-ui.css", scope: null, public: OpenApiRoute.docsStyle },
  { method: "GET", path: "/docs/swagger-ui.js", scope: null, public: OpenApiRoute.docsScript },
  { method: "GET", path: "/console", scope: null, public: ConsolePage.page },
  { method: "GET", path: ConsolePage.SCRIPT_PATH, scope: null, public: ConsolePage.script },
  { method: "GET", path: ConsolePage.STYLE_PATH, scope: null, public: ConsolePage.style },
  { method: "POST", path: "/v1/chat/completions", scope: "completions", inference: "chat.completions" },
  { method: "POST", path: "/v1/completions", scope: "completions", inference: "completions" },
  { method: "POST", path: "/v1/embeddings", scope: "completions", inference: "embeddings" },
  { method: "POST", path: "/v1/responses", scope: "completions", format: ResponsesRoute.make },
  { method: "POST", path: "/v1/messages", scope: "completions", format: MessagesRoute.create },
  { method: "POST", path: "/v1/messages/count_tokens", scope: "completions", format: MessagesRoute.countTokens },
  { method: "GET", path: "/v1/responses/:id", scope: "completions", handler: ResponsesRoute.getResponse },
  { method: "DELETE", path: "/v1/responses/:id", scope: "completions", handler: ResponsesRoute.deleteResponse },
  { method: "GET", path: "/v1/models", scope: "completions", handler: ModelRoutes.listModels },
  { method: "GET", path: "/v1/models/:id", scope: "completions", handler: ModelRoutes.retrieveModel },
  { method: "POST", path: "/v1/api-keys", scope: "keys", handler: Stored.createApiKey },
  { method: "GET", path: "/v1/api-keys", scope: "keys", handler: Stored.listApiKeys },
  { method: "DELETE", path: "/v1/api-keys/:id", scope: "keys", handler: Stored.revokeApiKey },
  { method: "POST", path: "/v1/integrations", scope: "keys", handler: Stored.createIntegration },
  { method: "GET", path: "/v1/integrations", scope: "keys", handler: Stored.listIntegrations },
  { method: "GET", path: "/v1/integrations/:id", scope: "keys", handler: Stored.getIntegration },
  { method: "DELETE", path: "/v1/integrations/:id", scope: "keys", handler: Stored.deleteIntegration },
  { method: "POST", path: "/v1/virtual-keys", scope: "keys", handler: Stored.createVirtualKey },
  { method: "GET", path: "/v1/virtual-keys", scope: "keys", handler: Stored.listVirtualKeys },
  { method: "DELETE", path: "/v1/virtual-keys/:id", scope: "keys", handler: Stored.deleteVirtualKey },
  { method: "POST", path: "/v1/configs", scope: "configs", handler: Stored.createConfig },
  { method: "GET", path: "/v1/configs", scope: "configs", handler: Stored.listConfigs },
  { method: "GET", path: "/v1/configs/:id", scope: "configs", handler: Stored.getConfig },
  { method: "PUT", path: "/v1/configs/:id", scope: "configs", handler: Stored.updateConfig },
  { method: "DELETE", path: "/v1/configs/:id", scope: "configs", handler: Stored.deleteConfig },
  { method: "POST", path: "/v1/guardrails", scope: "configs", handler: GuardrailRoutes.createGuardrail },
  { method: "GET", path: "/v1/guardrails", scope: "configs", handler: GuardrailRoutes.listGuardrails },
  { method: "GET", path: "/v1/guardrails/:id", scope: "configs", handler: GuardrailRoutes.getGuardrail },
  { method: "DELETE", path: "/v1/guardrails/:id", scope: "configs", handler: GuardrailRoutes.deleteGuardrail },
  { method: "POST", path: "/v1/prompts", scope: "prompts.write", handler: PromptRoutes.createPrompt },
  { method: "GET", path: "/v1/prompts", scope: "prompts.read", handler: PromptRoutes.listPrompts },
  { method: "GET", path: "/v1/prompts/:id", scope: "prompts.read", handler: PromptRoutes.getPrompt },
  { method: "DELETE", path: "/v1/prompts/:id", scope: "prompts.write", handler: PromptRoutes.deletePrompt },
  { method: "POST", path: "/v1/prompts/:id/versions", scope: "prompts.write", handler: PromptRoutes.createVersion },
  { method: "GET", path: "/v1/prompts/:id/versions", scope: "prompts.read", handler: PromptRoutes.listVersions },
  { method: "PUT", path: "/v1/prompts/:id/publish", scope: "prompts.write", handler: PromptRoutes.publishVersion },
  { method: "POST", path: "/v1/prompts/:id/render", scope: "prompts.read", handler: PromptRoutes.renderPrompt },
  { method: "POST", path: "/v1/prompts/:id/completions", scope: "completions", handler: PromptRoutes.completePrompt },
  { method: "POST", path: "/v1/assistants", scope: "assistants", handler: AssistantRoutes.createAssistant },
  { method: "GET", path: "/v1/assistants", scope: "assistants", handler: AssistantRoutes.listAssistants },
  { method: "GET", path: "/v1/assistants/:assistant_id", scope: "assistants", handler: AssistantRoutes.getAssistant },
  {
    method: "POST",
    path: "/v1/assistants/:assistant_id",
    scope: "assistants",
    handler: AssistantRoutes.modifyAssistant
  },
  {
    method: "DELETE",
    path: "/v1/assistants/:assistant_id",
    scope: "assistants",
    handler: AssistantRoutes.deleteAssistant
  },
  { method: "POST", path: "/v1/threads", scope: "assistants", handler: AssistantRoutes.createThread },
  { method: "POST", path: "/v1/threads/runs", scope: "assistants", handler: AssistantRoutes.createThreadAndRun },
  { method: "GET", path: "/v1/threads/:thread_id", scope: "assistants", handler: AssistantRoutes.getThread },
  { method: "POST", path: "/v1/threads/:thread_id", scope: "assistants", handler: AssistantRoutes.modifyThread },
  { method: "DELETE", path: "/v1/threads/:thread_id", scope: "assistants", handler: AssistantRoutes.deleteThread },
  {
    method: "POST",
    path: "/v1/threads/:thread_id/messages",
    scope: "assistants",
    handler: AssistantRoutes.createMessage
  },
  {
    method: "GET",
    path: "/v1/threads/:thread_id/messages",
    scope: "assistants",
    handler: AssistantRoutes.listMessages
  },
  {
    method: "GET",
    path: "/v1/threads/:thread_id/messages/:message_id",
    scope: "assistants",
    handler: AssistantRoutes.getMessage
  },
  {
    method: "POST",
    path: "/v1/threads/:thread_id/messages/:message_id",
    scope: "assistants",
    handler: AssistantRoutes.modifyMessage
  },
  {
    method: "DELETE",
    path: "/v1/threads/:thread_id/messages/:message_id",
    scope: "assistants",
    handler: AssistantRoutes.deleteMessage
  },
  { method: "POST", path: "/v1/threads/:thread_id/runs", scope: "assistants", handler: AssistantRoutes.createRun },
  { method: "GET", path: "/v1/threads/:thread_id/runs", scope: "assistants", handler: AssistantRoutes.listRuns },
  { method: "GET", path: "/v1/threads/:thread_id/runs/:run_id", scope: "assistants", handler: AssistantRoutes.getRun },
  {
    method: "POST",
    path: "/v1/threads/:thread_id/runs/:run_id",
    scope: "assistants",
    handler: AssistantRoutes.modifyRun
  },
  {
    method: "POST",
    path: "/v1/threads/:thread_id/runs/:run_id/cancel",
    scope: "assistants",
    handler: AssistantRoutes.cancelRun
  },
  {
    method: "POST",
    path: "/v1/threads/:thread_id/runs/:run_id/submit_tool_outputs",
    scope: "assistants",
    handler: AssistantRoutes.submitToolOutputs
  },
  {
    method: "GET",
    path: "/v1/threads/:thread_id/runs/:run_id/steps",
    scope: "assistants",
    handler: AssistantRoutes.listSteps
  },
  {
    method: "GET",
    path: "/v1/threads/:thread_id/runs/:run_id/steps/:step_id",
    scope: "assistants",
    handler: AssistantRoutes.getStep
  },
  { method: "POST", path: "/v1/files", scope: "files", handler: FileRoutes.uploadFile },
  { method: "GET", path: "/v1/files", scope: "files", handler: FileRoutes.listFiles },
  { method: "GET", path: "/v1/files/:id", scope: "files", handler: FileRoutes.getFile },
  { method: "GET", path: "/v1/files/:id/content", scope: "files", handler: FileRoutes.fileContent },
  { method: "DELETE", path: "/v1/files/:id", scope: "files", handler: FileRoutes.deleteFile },
  { method: "POST", path: "/v1/batches", scope: "batches", handler: BatchRoutes.createBatch },
  { method: "GET", path: "/v1/batches", scope: "batches", handler: BatchRoutes.listBatches },
  { method: "GET", path: "/v1/batches/:batch_id", scope: "batches", handler: BatchRoutes.getBatch },
  { method: "POST", path: "/v1/batches/:batch_id/cancel", scope: "batches", handler: BatchRoutes.cancelBatch },
  { method: "POST", path: "/v1/feedback", scope: "completions", handler: GuardrailRoutes.createFeedback },
  { method: "GET", path: "/v1/feedback", scope: "logs.read", handler: GuardrailRoutes.listFeedback },
  { method: "GET", path: "/v1/logs", scope: "logs.read", handler: LogRoutes.listLogs },
  { method: "GET", path: "/v1/logs/:id", scope: "logs.read", handler: LogRoutes.getLog },
  {
    method: "POST",
    path: "/v1/policies/usage-limits",
    scope: "policies.write",
    handler: UsageLimitRoutes.createPolicy
  },
  { method: "GET", path: "/v1/policies/usage-limits", scope: "policies.read", handler: UsageLimitRoutes.listPolicies },
  { method: "GET", path: "/v1/policies/usage-limits/:id", scope: "policies.read", handler: UsageLimitRoutes.getPolicy },
  {
    method: "PUT",
    path: "/v1/policies/usage-limits/:id",
    scope: "policies.write",
    handler: UsageLimitRoutes.updatePolicy
  },
  {
    method: "DELETE",
    path: "/v1/policies/usage-limits/:id",
    scope: "policies.write",
    handler: UsageLimitRoutes.archivePolicy
  },
  {
    method: "POST",
    path: "/v1/policies/usage-limits/:id/reset",
    scope: "policies.write",
    handler: UsageLimitRoutes.resetPolicy
  },
  { method: "POST", path: "/v1/policies/rate-limits", scope: "policies.write", handler: RateLimitRoutes.createPolicy },
  { method: "GET", path: "/v1/policies/rate-limits", scope: "policies.read", handler: RateLimitRoutes.listPolicies },
  { method: "GET", path: "/v1/policies/rate-limits/:id", scope: "policies.read", handler: RateLimitRoutes.getPolicy },
  {
    method: "PUT",
    path: "/v1/policies/rate-limits/:id",
    scope: "policies.write",
    handler: RateLimitRoutes.updatePolicy
  },
  {
    method: "DELETE",
    path: "/v1/policies/rate-limits/:id",
    scope: "policies.write",
    handler: RateLimitRoutes.archivePolicy
  },
  { method: "GET", path: "/v1/circuits", scope: "admin", handler: CircuitRoutes.listCircuits }
]

/**
 * The pattern of the route a request matches (`GET /v1/configs/:id`), or `unmatched`: a label
 * for the metrics, which must not grow a series per id. For the router's routes only: a hot-path
 * route's key is its pattern already.
 */
export const patternOf = (method: string, path: string): string => {
  const segments = path.split("/")
  for (const route of routePatterns) {
    if (route.method !== method || route.parts.length !== segments.length) continue
    if (route.parts.every((part, index) => part.startsWith(":") || part === segments[index])) return route.label
  }
  return "unmatched"
}

const routePatterns = table.map((route) => ({
  method: route.method,
  parts: route.path.split("/"),
  label: `${route.method} ${route.path}`
}))

/** The hot path: `METHOD /path` to a node:http handler. */
export const nodeRoutes = (
  options: InferenceRoute.InferenceRouteOptions
): Effect.Effect<NodeRoutes, never, FormatServices> =>
  Effect.gen(function*() {
    const entries: Array<[string, NodeHandler]> = []
    for (const route of table) {
      if ("inference" in route) {
        entries.push([
          `${route.method} ${route.path}`,
          yield* InferenceRoute.make(route.inference, route.scope, options)
        ])
      }
      if ("format" in route) entries.push([`${route.method} ${route.path}`, yield* route.format(options)])
    }
    return new Map(entries)
  })

/** Everything else. */
export const routerRoutes: Layer.Layer<
  never,
  never,
  HttpRouter.HttpRouter | Authenticator.Authenticator | StoredServices | Readiness.Readiness
> = HttpRouter
  .use((router) =>
    Effect.gen(function*() {
      const readiness = yield* Readiness.Readiness
      // public answers read the server's settings (MetricsRoute.Enabled) from where the routes are built
      const built = yield* Effect.context<never>()
      for (const route of table) {
        if ("public" in route) {
          const answer = Effect.isEffect(route.public) ? Effect.provideContext(route.public, built) : route.public
          yield* router.add(route.method, route.path, ManagementRoute.open(answer))
        }
        if ("readiness" in route) {
          const answer = Effect.provideService(route.readiness, Readiness.Readiness, readiness)
          yield* router.add(route.method, route.path, ManagementRoute.open(answer))
        }
        if ("handler" in route) {
          yield* router.add(route.method, route.path, yield* ManagementRoute.route(route.scope, route.handler))
        }
      }
      yield* router.add("*", "*", ManagementRoute.notFound)
    })
  )
