/** Assistants, threads, messages, runs and run steps. */
import { ListQuery } from "@switchyard/protocol"
import { Schema } from "effect"
import { json, listOf, type Operation, providerHeaders } from "./OperationShapes.ts"

export const operations: Readonly<Record<string, Operation>> = {
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
  }
}
