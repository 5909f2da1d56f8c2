/**
 * What the route table does not say about a route, for /v1/openapi.json: its summary, the schema
 * its handler decodes the body with, its query, what it answers. Method, path, path parameters,
 * scope and the errors those imply come from the table itself (OpenApiDocument).
 */
import { RequestContext } from "@switchyard/core"
import { Feedback } from "@switchyard/guardrails"
import {
  Assistant,
  Batch,
  ChatCompletion,
  ChatCompletionRequest,
  CompletionRequest,
  EmbeddingRequest,
  ErrorBody,
  FileObject,
  ListQuery,
  PromptTemplate,
  RateLimitPolicy,
  RunStep,
  StoredObjectRequests,
  Thread,
  ThreadMessage,
  ThreadRun,
  UsageLimitsPolicy
} from "@switchyard/protocol"
import { Schema } from "effect"

/** The multipart body of `POST /v1/files`. */
const UploadFile = Schema.Struct({
  file: Schema.String.annotate({
    description: "The file, as a part with a filename: JSONL, one request per line (at most GATEWAY_MAX_FILE_BYTES)."
  }),
  purpose: FileObject.UploadPurpose
})

/** The answer of every list route (ManagementRoute.list). */
const List = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)),
  first_id: Schema.NullOr(Schema.String),
  last_id: Schema.NullOr(Schema.String),
  has_more: Schema.Boolean
})

export type SchemaName =
  | "ChatCompletionRequest"
  | "ChatCompletion"
  | "CompletionRequest"
  | "EmbeddingRequest"
  | "CreateApiKey"
  | "CreateIntegration"
  | "CreateVirtualKey"
  | "CreateConfig"
  | "UpdateConfig"
  | "CreateGuardrail"
  | "FeedbackRequest"
  | "CreateUsageLimitsPolicy"
  | "UpdateUsageLimitsPolicy"
  | "UsageLimitsPolicy"
  | "CreateRateLimitPolicy"
  | "UpdateRateLimitPolicy"
  | "CreatePrompt"
  | "CreatePromptVersion"
  | "PublishPrompt"
  | "RunPrompt"
  | "CreateAssistant"
  | "ModifyAssistant"
  | "Assistant"
  | "CreateThread"
  | "ModifyThread"
  | "Thread"
  | "CreateThreadMessage"
  | "ModifyThreadMessage"
  | "ThreadMessage"
  | "CreateRun"
  | "CreateThreadAndRun"
  | "ModifyRun"
  | "ThreadRun"
  | "SubmitToolOutputs"
  | "RunStep"
  | "UploadFile"
  | "CreateBatch"
  | "Batch"
  | "FileObject"
  | "List"
  | "ErrorBody"

/** Each becomes `#/components/schemas/<name>`. */
export const schemas: Readonly<Record<SchemaName, Schema.Top>> = {
  ChatCompletionRequest: ChatCompletionRequest.ChatCompletionRequest,
  ChatCompletion: ChatCompletion.ChatCompletion,
  CompletionRequest: CompletionRequest.CompletionRequest,
  EmbeddingRequest: EmbeddingRequest.EmbeddingRequest,
  CreateApiKey: StoredObjectRequests.CreateApiKey,
  CreateIntegration: StoredObjectRequests.CreateIntegration,
  CreateVirtualKey: StoredObjectRequests.CreateVirtualKey,
  CreateConfig: StoredObjectRequests.CreateConfig,
  UpdateConfig: StoredObjectRequests.UpdateConfig,
  CreateGuardrail: StoredObjectRequests.CreateGuardrail,
  FeedbackRequest: Feedback.FeedbackRequest,
  CreateUsageLimitsPolicy: UsageLimitsPolicy.CreateUsageLimitsPolicy,
  UpdateUsageLimitsPolicy: UsageLimitsPolicy.UpdateUsageLimitsPolicy,
  UsageLimitsPolicy: UsageLimitsPolicy.UsageLimitsPolicy,
  CreateRateLimitPolicy: RateLimitPolicy.CreateRateLimitPolicy,
  UpdateRateLimitPolicy: RateLimitPolicy.UpdateRateLimitPolicy,
  CreatePrompt: PromptTemplate.CreatePrompt,
  CreatePromptVersion: PromptTemplate.CreatePromptVersion,
  PublishPrompt: PromptTemplate.PublishPrompt,
  RunPrompt: PromptTemplate.RunPrompt,
  CreateAssistant: Assistant.CreateAssistant,
  ModifyAssistant: Assistant.ModifyAssistant,
  Assistant: Assistant.Assistant,
  CreateThread: Thread.CreateThread,
  ModifyThread: Thread.ModifyThread,
  Thread: Thread.Thread,
  CreateThreadMessage: ThreadMessage.CreateThreadMessage,
  ModifyThreadMessage: ThreadMessage.ModifyThreadMessage,
  ThreadMessage: ThreadMessage.ThreadMessage,
  CreateRun: ThreadRun.CreateRun,
  CreateThreadAndRun: ThreadRun.CreateThreadAndRun,
  ModifyRun: ThreadRun.ModifyRun,
  ThreadRun: ThreadRun.ThreadRun,
  SubmitToolOutputs: ThreadRun.SubmitToolOutputs,
  RunStep: RunStep.RunStep,
  UploadFile,
  CreateBatch: Batch.CreateBatch,
  Batch: Batch.Batch,
  FileObject: FileObject.FileObject,
  List,
  ErrorBody: ErrorBody.ErrorBody
}

export const tags = {
  Inference: "The OpenAI-compatible endpoints, sent on to the provider the request selects.",
  Models: "The model catalog.",
  "API keys": "Keys that call the gateway, each with its scopes, in one workspace.",
  Integrations: "Stored provider credentials, used as `@slug`.",
  "Virtual keys": "Stored provider credentials sent as `x-gateway-virtual-key` (legacy).",
  Configs: "Stored config objects, used as `x-gateway-config: pc-…`.",
  Guardrails: "Stored guardrails that configs name by id.",
  Feedback: "Feedback recorded against a trace id.",
  "Usage limits": "Budgets in tokens or US dollars per group of requests, enforced before the provider is called.",
  "Rate limits": "Requests or tokens per minute, hour or day per group of requests; over the limit, 429.",
  Prompts:
    "Versioned Mustache chat templates, rendered and run through the pipeline as `pp-…`, `pp-…@latest` or `pp-…@N`.",
  Assistants: "Assistants, threads, messages, runs and run steps, kept by the gateway; a run goes through the "
    + "pipeline to any provider, with the provider selection its thread was created with.",
  Files: "Uploaded files (batch input) and the files batches write, per workspace.",
  Batches: "JSONL files of requests run in the background through the pipeline, on any provider, with the "
    + "provider selection the batch was created with.",
  Service: "The gateway itself: health and this description."
} as const

export type Tag = keyof typeof tags

/** The media type and schema of a successful answer. */
export interface Answer {
  readonly description: string
  readonly mediaType:
    | "application/json"
    | "text/html"
    | "text/css"
    | "text/javascript"
    | "application/octet-stream"
    | "text/plain"
  /** Absent: any value of the media type. */
  readonly schema?: SchemaName
  /** Also answers server-sent events when the body says `"stream": true`. */
  readonly streams?: boolean
}

export interface Header {
  readonly name: string
  readonly description: string
}

export interface Operation {
  readonly tag: Tag
  readonly summary: string
  readonly description?: string
  /** The schema the handler decodes the JSON body with. */
  readonly body?: SchemaName
  /** The fields of a multipart/form-data body (instead of a JSON one). */
  readonly multipart?: SchemaName
  /** A struct whose fields are the query parameters. */
  readonly query?: Schema.Struct<Schema.Struct.Fields>
  readonly headers?: ReadonlyArray<Header>
  readonly answer: Answer
  /** Statuses beyond those the route's scope, body and path imply. */
  readonly errors?: ReadonlyArray<409 | 503>
  /** The route chooses a provider and answers with the provider's own failures too. */
  readonly upstream?: boolean
}

/** `status` (default `active`) and `include_usage` of the usage-limits policy routes. */
const policyQuery = Schema.Struct({
  status: Schema.optionalKey(Schema.Literals(["active", "archived"])),
  include_usage: Schema.optionalKey(Schema.Literals(["true", "false"]))
})

/** `status` (default `active`) of the rate-limit policy routes. */
const RateLimitStatus = Schema.Struct({ status: Schema.optionalKey(Schema.Literals(["active", "archived"])) })

/** Headers that choose and steer the provider (extensions.md, "Choosing the provider"). */
const providerHeaders: ReadonlyArray<Header> = [
  {
    name: RequestContext.Headers.config,
    description: "A config object as JSON, or the id of a stored config (`pc-…`)."
  },
  {
    name: RequestContext.Headers.provider,
    description: "A short provider name (`openai`, `anthropic`, …) or an integration slug `@slug`; "
      + "the provider's key goes in `Authorization: Bearer …`."
  },
  { name: RequestContext.Headers.virtualKey, description: "A stored credential (legacy)." },
  { name: RequestContext.Headers.customHost, description: "With a provider name: the base URL to send to." },
  {
    name: RequestContext.Headers.metadata,
    description: "A JSON object of strings, at most 16 keys; `_user` names the end user."
  },
  { name: RequestContext.Headers.forwardHeaders, description: "Names of request headers to pass to the provider." },
  { name: RequestContext.Headers.requestTimeout, description: "Milliseconds before the upstream call times out." },
  {
    name: RequestContext.Headers.strictVendorCompliance,
    description: "`true` or `false`: drop fields the provider does not define."
  }
]

const json = (description: string, schema?: SchemaName): Answer =>
  schema === undefined ? { description, mediaType: "application/json" } : {
    description,
    mediaType: "application/json",
    schema
  }

const ModelsQuery = Schema.Struct({
  provider: Schema.optionalKey(Schema.String.annotate({ description: "Only this provider's models." }))
})

const listOf = (things: string): Answer => json(`The caller's workspace's ${things}, in the list shape.`, "List")

/** Every route's description, by `METHOD path` as in the route table. */
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
  "POST /v1/chat/completions": {
    tag: "Inference",
    summary: "Chat completion",
    body: "ChatCompletionRequest",
    headers: providerHeaders,
    answer: {
      description: "The completion; with `\"stream\": true`, server-sent events of chunks ending in `data: [DONE]`.",
      mediaType: "application/json",
      schema: "ChatCompletion",
      streams: true
    },
    upstream: true
  },
  "POST /v1/completions": {
    tag: "Inference",
    summary: "Text completion",
    body: "CompletionRequest",
    headers: providerHeaders,
    answer: {
      description: "The completion; with `\"stream\": true`, server-sent events ending in `data: [DONE]`.",
      mediaType: "application/json",
      streams: true
    },
    upstream: true
  },
  "POST /v1/embeddings": {
    tag: "Inference",
    summary: "Embeddings",
    body: "EmbeddingRequest",
    headers: providerHeaders,
    answer: json("The embeddings, in OpenAI's list shape."),
    upstream: true
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
  },
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
  "POST /v1/files": {
    tag: "Files",
    summary: "Upload a file",
    description: "Multipart: a file part `file` and the field `purpose` (`batch`). The upload is streamed to "
      + "storage; batch input must be JSONL (UTF-8, a line that is a JSON object), else 400 naming `file` and the "
      + "first bad line; past `GATEWAY_MAX_FILE_BYTES`, 413 and nothing is kept.",
    multipart: "UploadFile",
    answer: json("The file, with its id `file-…`.", "FileObject")
  },
  "GET /v1/files": {
    tag: "Files",
    summary: "List files",
    query: Schema.Struct({ ...ListQuery.ListQuery.fields, purpose: Schema.optionalKey(FileObject.FilePurpose) }),
    answer: listOf("files")
  },
  "GET /v1/files/:id": {
    tag: "Files",
    summary: "Get a file",
    answer: json("The file.", "FileObject")
  },
  "GET /v1/files/:id/content": {
    tag: "Files",
    summary: "Get a file's content",
    answer: { description: "The bytes as uploaded or written.", mediaType: "application/octet-stream" }
  },
  "DELETE /v1/files/:id": {
    tag: "Files",
    summary: "Delete a file",
    answer: json("`{id, object: \"file\", deleted: true}`.")
  },
  "POST /v1/batches": {
    tag: "Batches",
    summary: "Create a batch",
    description: "Answers `validating`; the lines run in a batch worker. The request's provider selection (a config, "
      + "a provider with its key, or a virtual key) is kept for the lines; none is a 400.",
    body: "CreateBatch",
    headers: providerHeaders,
    answer: json("The batch, with its id `batch_…`.", "Batch")
  },
  "GET /v1/batches": {
    tag: "Batches",
    summary: "List batches",
    query: ListQuery.ListQuery,
    answer: listOf("batches")
  },
  "GET /v1/batches/:batch_id": {
    tag: "Batches",
    summary: "Get a batch",
    answer: json("The batch, with its current `request_counts`.", "Batch")
  },
  "POST /v1/batches/:batch_id/cancel": {
    tag: "Batches",
    summary: "Cancel a batch",
    description: "`cancelling` at once, `cancelled` once its files are written; an ended batch is a 409.",
    errors: [409],
    answer: json("The batch.", "Batch")
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
  },
  "POST /v1/policies/usage-limits": {
    tag: "Usage limits",
    summary: "Create a usage-limits policy",
    body: "CreateUsageLimitsPolicy",
    answer: json("`{\"id\": uuid, \"object\": \"policy_usage_limits\"}`.")
  },
  "GET /v1/policies/usage-limits": {
    tag: "Usage limits",
    summary: "List usage-limits policies",
    query: policyQuery,
    answer: listOf("usage-limits policies")
  },
  "GET /v1/policies/usage-limits/:id": {
    tag: "Usage limits",
    summary: "Get a usage-limits policy",
    query: policyQuery,
    answer: json("The policy; with `include_usage=true`, its `value_key_usage_map`.", "UsageLimitsPolicy"),
    errors: [503]
  },
  "PUT /v1/policies/usage-limits/:id": {
    tag: "Usage limits",
    summary: "Update a usage-limits policy",
    body: "UpdateUsageLimitsPolicy",
    answer: json("The updated policy.", "UsageLimitsPolicy")
  },
  "DELETE /v1/policies/usage-limits/:id": {
    tag: "Usage limits",
    summary: "Archive a usage-limits policy",
    answer: json("The archived policy: it is no longer enforced.", "UsageLimitsPolicy")
  },
  "POST /v1/policies/usage-limits/:id/reset": {
    tag: "Usage limits",
    summary: "Reset a usage-limits policy's usage",
    answer: json("The policy; its usage starts again from zero.", "UsageLimitsPolicy")
  },
  "POST /v1/policies/rate-limits": {
    tag: "Rate limits",
    summary: "Create a rate-limit policy",
    body: "CreateRateLimitPolicy",
    answer: json("The policy, `object: \"policy_rate_limits\"`.")
  },
  "GET /v1/policies/rate-limits": {
    tag: "Rate limits",
    summary: "List rate-limit policies",
    query: RateLimitStatus,
    answer: listOf("rate-limit policies")
  },
  "GET /v1/policies/rate-limits/:id": {
    tag: "Rate limits",
    summary: "Get a rate-limit policy",
    query: RateLimitStatus,
    answer: json("The policy.")
  },
  "PUT /v1/policies/rate-limits/:id": {
    tag: "Rate limits",
    summary: "Update a rate-limit policy",
    body: "UpdateRateLimitPolicy",
    answer: json("The updated policy.")
  },
  "DELETE /v1/policies/rate-limits/:id": {
    tag: "Rate limits",
    summary: "Archive a rate-limit policy",
    answer: json("The archived policy: it is no longer enforced.")
  },
  "POST /v1/assistants": {
    tag: "Assistants",
    summary: "Create an assistant",
    body: "CreateAssistant",
    answer: json("The assistant, with its id `asst_…`.", "Assistant")
  },
  "GET /v1/assistants": {
    tag: "Assistants",
    summary: "List assistants",
    query: ListQuery.ListQuery,
    answer: listOf("assistants")
  },
  "GET /v1/assistants/:assistant_id": {
    tag: "Assistants",
    summary: "Get an assistant",
    answer: json("The assistant.", "Assistant")
  },
  "POST /v1/assistants/:assistant_id": {
    tag: "Assistants",
    summary: "Modify an assistant",
    description: "The fields the body sets change; the others stay.",
    body: "ModifyAssistant",
    answer: json("The assistant.", "Assistant")
  },
  "DELETE /v1/assistants/:assistant_id": {
    tag: "Assistants",
    summary: "Delete an assistant",
    answer: json("`{id, object: \"assistant.deleted\", deleted: true}`.")
  },
  "POST /v1/threads": {
    tag: "Assistants",
    summary: "Create a thread",
    description: "The request's provider selection (a config, a provider with its key, or a virtual key) is kept, "
      + "sealed, and used by every run of the thread; none is a 400.",
    body: "CreateThread",
    headers: providerHeaders,
    answer: json("The thread, with its id `thread_…`.", "Thread")
  },
  "POST /v1/threads/runs": {
    tag: "Assistants",
    summary: "Create a thread and run it",
    description: "A new thread (`thread`, as `POST /v1/threads` takes it, with the request's provider selection) "
      + "and its first run, answered as `POST /v1/threads/{thread_id}/runs` answers.",
    body: "CreateThreadAndRun",
    headers: providerHeaders,
    answer: {
      description: "The queued run; with `\"stream\": true`, its server-sent events.",
      mediaType: "application/json",
      schema: "ThreadRun",
      streams: true
    }
  },
  "GET /v1/threads/:thread_id": { tag: "Assistants", summary: "Get a thread", answer: json("The thread.", "Thread") },
  "POST /v1/threads/:thread_id": {
    tag: "Assistants",
    summary: "Modify a thread's metadata",
    body: "ModifyThread",
    answer: json("The thread.", "Thread")
  },
  "DELETE /v1/threads/:thread_id": {
    tag: "Assistants",
    summary: "Delete a thread",
    description: "Its messages, runs and steps go with it.",
    answer: json("`{id, object: \"thread.deleted\", deleted: true}`.")
  },
  "POST /v1/threads/:thread_id/messages": {
    tag: "Assistants",
    summary: "Add a message to a thread",
    body: "CreateThreadMessage",
    answer: json("The message, with its id `msg_…`.", "ThreadMessage")
  },
  "GET /v1/threads/:thread_id/messages": {
    tag: "Assistants",
    summary: "List a thread's messages",
    query: Schema.Struct({
      ...ListQuery.ListQuery.fields,
      run_id: Schema.optionalKey(Schema.String.annotate({ description: "Only the messages this run made." }))
    }),
    answer: json("The thread's messages in the list shape, a page at a time.", "List")
  },
  "GET /v1/threads/:thread_id/messages/:message_id": {
    tag: "Assistants",
    summary: "Get a message",
    answer: json("The message.", "ThreadMessage")
  },
  "POST /v1/threads/:thread_id/messages/:message_id": {
    tag: "Assistants",
    summary: "Modify a message's metadata",
    body: "ModifyThreadMessage",
    answer: json("The message.", "ThreadMessage")
  },
  "DELETE /v1/threads/:thread_id/messages/:message_id": {
    tag: "Assistants",
    summary: "Delete a message",
    answer: json("`{id, object: \"thread.message.deleted\", deleted: true}`.")
  },
  "POST /v1/threads/:thread_id/runs": {
    tag: "Assistants",
    summary: "Run a thread",
    description: "Answers the run `queued` at once; it then runs in the background through the pipeline with the "
      + "thread's provider selection. Poll it until it ends. A thread has one active run at a time (400).",
    body: "CreateRun",
    answer: {
      description: "The queued run, with its id `run_…`; with `\"stream\": true`, the run's server-sent events "
        + "(`thread.run.created` … `thread.run.completed`), then `event: done` with `data: [DONE]`.",
      mediaType: "application/json",
      schema: "ThreadRun",
      streams: true
    }
  },
  "GET /v1/threads/:thread_id/runs": {
    tag: "Assistants",
    summary: "List a thread's runs",
    query: ListQuery.ListQuery,
    answer: json("The thread's runs in the list shape, a page at a time.", "List")
  },
  "GET /v1/threads/:thread_id/runs/:run_id": {
    tag: "Assistants",
    summary: "Get a run",
    answer: json("The run.", "ThreadRun")
  },
  "POST /v1/threads/:thread_id/runs/:run_id": {
    tag: "Assistants",
    summary: "Modify a run's metadata",
    description: "Whatever the run's status; its progress never writes over the metadata set here.",
    body: "ModifyRun",
    answer: json("The run.", "ThreadRun")
  },
  "POST /v1/threads/:thread_id/runs/:run_id/cancel": {
    tag: "Assistants",
    summary: "Cancel a run",
    description: "A run that has already ended is a 400.",
    answer: json("The cancelled run.", "ThreadRun")
  },
  "POST /v1/threads/:thread_id/runs/:run_id/submit_tool_outputs": {
    tag: "Assistants",
    summary: "Submit the outputs of a run's function calls",
    description: "For a run in `requires_action`: one output per call it waits on (else 400 naming `tool_outputs`); "
      + "the run is queued again and goes on in the background.",
    body: "SubmitToolOutputs",
    answer: {
      description: "The queued run; with `\"stream\": true`, the continued run's server-sent events.",
      mediaType: "application/json",
      schema: "ThreadRun",
      streams: true
    }
  },
  "GET /v1/threads/:thread_id/runs/:run_id/steps": {
    tag: "Assistants",
    summary: "List a run's steps",
    query: ListQuery.ListQuery,
    answer: json("The run's steps in the list shape, a page at a time.", "List")
  },
  "GET /v1/threads/:thread_id/runs/:run_id/steps/:step_id": {
    tag: "Assistants",
    summary: "Get a run step",
    answer: json("The step.", "RunStep")
  },
  "POST /v1/prompts": {
    tag: "Prompts",
    summary: "Create a prompt",
    description: "Creates version 1, published. Template strings that do not parse are a 400 naming where.",
    body: "CreatePrompt",
    answer: json("The prompt with its published version's definition, and its id `pp-…`.")
  },
  "GET /v1/prompts": {
    tag: "Prompts",
    summary: "List prompts",
    query: ListQuery.ListQuery,
    answer: json("The caller's workspace's prompts in the list shape, a page at a time.", "List")
  },
  "GET /v1/prompts/:id": {
    tag: "Prompts",
    summary: "Get a prompt",
    answer: json("The prompt with its published version's definition.")
  },
  "DELETE /v1/prompts/:id": { tag: "Prompts", summary: "Delete a prompt", answer: json("The deleted prompt.") },
  "POST /v1/prompts/:id/versions": {
    tag: "Prompts",
    summary: "Add a version",
    description: "The next number, complete in itself and never changed again; it is not published.",
    body: "CreatePromptVersion",
    answer: json("The version, with its id `pp-…@N`.")
  },
  "GET /v1/prompts/:id/versions": {
    tag: "Prompts",
    summary: "List a prompt's versions",
    query: ListQuery.ListQuery,
    answer: json("The versions, newest first, a page at a time (cursors are version ids `pp-…@N`).", "List")
  },
  "PUT /v1/prompts/:id/publish": {
    tag: "Prompts",
    summary: "Publish a version",
    description: "The unsuffixed id runs the published version from then on.",
    body: "PublishPrompt",
    answer: json("The prompt.")
  },
  "POST /v1/prompts/:id/render": {
    tag: "Prompts",
    summary: "Render a prompt",
    description:
      "`id` may end in `@latest` or `@N`. A variable the template uses but `variables` lacks is a 400 naming it.",
    body: "RunPrompt",
    answer: json("The chat completion request the prompt renders to; no provider is called.")
  },
  "POST /v1/prompts/:id/completions": {
    tag: "Prompts",
    summary: "Run a prompt",
    description: "`id` may end in `@latest` or `@N`. The rendered request runs through the pipeline as a chat "
      + "completion; root-level hyperparameters override the version's saved ones.",
    body: "RunPrompt",
    headers: providerHeaders,
    answer: {
      description: "`{status, headers, body}` with the chat completion in `body`; with `\"stream\": true`, the chat "
        + "completion's server-sent events ending in `data: [DONE]`.",
      mediaType: "application/json",
      streams: true
    },
    upstream: true
  }
}
