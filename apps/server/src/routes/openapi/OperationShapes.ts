/**
 * The shapes every route's description is written in (see OpenApiOperations): the schemas a
 * description may name, the tags, and the helpers the per-area descriptions share.
 */
import { RequestContext } from "@switchyard/core"
import { Feedback } from "@switchyard/guardrails"
import { MessagesError, MessagesRequest } from "@switchyard/messages-format"
import {
  Assistant,
  Batch,
  ChatCompletion,
  ChatCompletionRequest,
  CompletionRequest,
  EmbeddingRequest,
  ErrorBody,
  FileObject,
  PromptTemplate,
  RateLimitPolicy,
  RunStep,
  StoredObjectRequests,
  Thread,
  ThreadMessage,
  ThreadRun,
  UsageLimitsPolicy
} from "@switchyard/protocol"
import { ResponsesRequest } from "@switchyard/responses-format"
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
  | "ResponsesRequest"
  | "MessagesRequest"
  | "CountTokensRequest"
  | "MessagesErrorBody"
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
  ResponsesRequest: ResponsesRequest.ResponsesRequest,
  MessagesRequest: MessagesRequest.MessagesRequest,
  CountTokensRequest: MessagesRequest.CountTokensRequest,
  MessagesErrorBody: MessagesError.ErrorBody,
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
  Logs: "The request log: every inference request answered, per workspace, with its status, tokens, cost and timing.",
  Circuits: "Each target's circuit breaker (`cb_config`) as this process knows it; admin only.",
  Console: "The web console: a page and its two assets, served by the gateway itself.",
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
  /** The body of its error answers, when not the gateway's envelope (the Messages routes answer Anthropic's). */
  readonly errorBody?: SchemaName
}

/** Headers that choose and steer the provider (extensions.md, "Choosing the provider"). */
export const providerHeaders: ReadonlyArray<Header> = [
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

export const json = (description: string, schema?: SchemaName): Answer =>
  schema === undefined ? { description, mediaType: "application/json" } : {
    description,
    mediaType: "application/json",
    schema
  }

export const listOf = (things: string): Answer => json(`The caller's workspace's ${things}, in the list shape.`, "List")
