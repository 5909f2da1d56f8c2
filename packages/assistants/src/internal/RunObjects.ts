/**
 * The objects a run writes, as the common assistants format shapes them: the queued run, its
 * steps, the assistant's message, and the run waiting on its function calls.
 */
import type { Assistant, ChatTool, RunStep, ThreadMessage, ThreadRun } from "@switchyard/protocol"
import { newId } from "../ThreadStore.ts"

/** A new run of `assistant` on the thread; the run's own settings win over the assistant's. */
export const queuedRun = (options: {
  readonly body: ThreadRun.CreateRun
  readonly assistant: Assistant.Assistant
  readonly threadId: string
  readonly instructions: string
  readonly at: number
  readonly expiresAt: number
}): ThreadRun.ThreadRun => {
  const { assistant, body } = options
  return {
    id: newId("run"),
    object: "thread.run",
    created_at: options.at,
    thread_id: options.threadId,
    assistant_id: assistant.id,
    status: "queued",
    required_action: null,
    last_error: null,
    expires_at: options.expiresAt,
    started_at: null,
    cancelled_at: null,
    failed_at: null,
    completed_at: null,
    incomplete_details: null,
    model: body.model ?? assistant.model,
    instructions: options.instructions,
    tools: body.tools ?? assistant.tools,
    metadata: body.metadata ?? {},
    usage: null,
    temperature: body.temperature ?? assistant.temperature,
    top_p: body.top_p ?? assistant.top_p,
    max_prompt_tokens: null,
    max_completion_tokens: body.max_completion_tokens ?? null,
    truncation_strategy: { type: "auto", last_messages: null },
    response_format: body.response_format ?? assistant.response_format,
    tool_choice: body.tool_choice ?? "auto",
    parallel_tool_calls: body.parallel_tool_calls ?? true
  }
}

/** The step that makes the message `messageId`, as it starts. */
export const messageCreationStep = (run: ThreadRun.ThreadRun, messageId: string, at: number): RunStep.RunStep => ({
  id: newId("step"),
  object: "thread.run.step",
  created_at: at,
  assistant_id: run.assistant_id,
  thread_id: run.thread_id,
  run_id: run.id,
  type: "message_creation",
  status: "in_progress",
  step_details: { type: "message_creation", message_creation: { message_id: messageId } },
  last_error: null,
  expired_at: null,
  cancelled_at: null,
  failed_at: null,
  completed_at: null,
  metadata: null,
  usage: null
})

/** The run's message as it starts: no content yet. */
export const assistantMessage = (
  run: ThreadRun.ThreadRun,
  messageId: string,
  at: number
): ThreadMessage.ThreadMessage => ({
  id: messageId,
  object: "thread.message",
  created_at: at,
  thread_id: run.thread_id,
  status: "in_progress",
  incomplete_details: null,
  completed_at: null,
  incomplete_at: null,
  role: "assistant",
  content: [],
  assistant_id: run.assistant_id,
  run_id: run.id,
  attachments: [],
  metadata: {}
})

/** The step that was to make a message, become the model's function calls (outputs still to come). */
export const toolCallsStep = (
  step: RunStep.RunStep,
  calls: ReadonlyArray<ChatTool.ToolCall>,
  usage: ThreadRun.RunUsage | null
): RunStep.RunStep => ({
  ...step,
  type: "tool_calls",
  step_details: {
    type: "tool_calls",
    tool_calls: calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.function.name, arguments: call.function.arguments, output: null }
    }))
  },
  usage
})

/** The run waiting on its caller for the outputs of `calls`. */
export const waitingRun = (
  run: ThreadRun.ThreadRun,
  calls: ReadonlyArray<ChatTool.ToolCall>,
  usage: ThreadRun.RunUsage | null
): ThreadRun.ThreadRun => ({
  ...run,
  status: "requires_action",
  required_action: {
    type: "submit_tool_outputs",
    submit_tool_outputs: {
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.function.name, arguments: call.function.arguments }
      }))
    }
  },
  usage
})
