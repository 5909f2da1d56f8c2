/**
 * A batch of chat lines through the gateway with the official `openai` client: the input file
 * uploaded, then the batch created and followed until it ends.
 */
import type OpenAI from "openai"
import { toFile } from "openai"

/** Uploads a batch input of one chat line per custom id, each asking `model`. */
export const uploadChatLines = async (
  openai: OpenAI,
  customIds: ReadonlyArray<string>,
  model = "gpt-4o-mini"
): Promise<OpenAI.FileObject> => {
  const lines = customIds.map((customId) =>
    JSON.stringify({
      custom_id: customId,
      method: "POST",
      url: "/v1/chat/completions",
      body: { model, messages: [{ role: "user", content: customId }] }
    })
  )
  return openai.files.create({
    file: await toFile(Buffer.from(`${lines.join("\n")}\n`), "input.jsonl"),
    purpose: "batch"
  })
}

/** Creates a batch of `inputFileId` and follows it, for 10 s at most, until it completes or fails. */
export const runToEnd = async (openai: OpenAI, inputFileId: string): Promise<OpenAI.Batch> => {
  let batch = await openai.batches.create({
    input_file_id: inputFileId,
    endpoint: "/v1/chat/completions",
    completion_window: "24h"
  })
  for (let attempt = 0; attempt < 400 && !["completed", "failed"].includes(batch.status); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 25))
    batch = await openai.batches.retrieve(batch.id)
  }
  return batch
}
