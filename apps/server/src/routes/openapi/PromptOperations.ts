/** Prompt templates, their versions, renders and runs. */
import { ListQuery } from "@switchyard/protocol"
import { json, type Operation, providerHeaders } from "./OperationShapes.ts"

export const operations: Readonly<Record<string, Operation>> = {
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
