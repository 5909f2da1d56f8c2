/**
 * The golden transcripts of `@switchyard/messages-format` (a chat chunk stream as a provider
 * sends it, and the Anthropic events it must become), replayed here by the OpenAI fake.
 */
import { readFileSync } from "node:fs"

export interface Transcript {
  readonly chunks: ReadonlyArray<unknown>
  readonly ending: "done" | "cut"
  readonly events: ReadonlyArray<unknown>
}

const folder = new URL("../../../../packages/messages-format/test/fixtures/", import.meta.url)

export const goldenTranscript = (name: string): Transcript =>
  JSON.parse(readFileSync(new URL(`${name}.json`, folder), "utf8"))

/** The chunks as an OpenAI-format SSE body; without `[DONE]` when the stream was cut. */
export const sseOf = (chunks: ReadonlyArray<unknown>, options: { readonly done?: boolean } = {}): string =>
  chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("") +
  (options.done === false ? "" : "data: [DONE]\n\n")
