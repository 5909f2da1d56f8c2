import { assert, describe, it } from "@effect/vitest"
import { MessagesStream } from "@switchyard/messages-format"
import { Effect, Stream } from "effect"
import { readdirSync, readFileSync } from "node:fs"

/**
 * Golden transcripts: a chat chunk stream as a provider adapter gives it (recorded in
 * fixtures/*.json) and the Anthropic events it must become, in order.
 */
const fixtures = readdirSync(new URL("./fixtures", import.meta.url)).filter((name) => name.endsWith(".json"))

interface Fixture {
  readonly chunks: ReadonlyArray<unknown>
  readonly ending: "done" | "cut"
  readonly events: ReadonlyArray<unknown>
}

const read = (name: string): Fixture => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8"))

const options = { estimatedInputTokens: 7, model: "claude-sonnet-4-5" }
const cut = { type: "error", error: { type: "api_error", message: "openai: the stream was cut" } } as const

describe("MessagesStream golden transcripts", () => {
  it("has a transcript for each case the issue names", () => {
    for (
      const name of [
        "text",
        "tool-use-split-arguments",
        "parallel-tool-calls",
        "thinking-with-signature",
        "reasoning-content",
        "stop-max-tokens",
        "stop-sequence",
        "cut-stream"
      ]
    ) assert.include(fixtures, `${name}.json`)
  })

  for (const name of fixtures) {
    it.effect(`turns ${name} into its recorded events`, () =>
      Effect.gen(function*() {
        const fixture = read(name)
        const chunks = fixture.ending === "done"
          ? Stream.fromIterable(fixture.chunks)
          : Stream.concat(Stream.fromIterable(fixture.chunks), Stream.fail("cut"))
        const events = yield* Stream.runCollect(MessagesStream.toEvents(chunks, options, () => Effect.succeed(cut)))
        assert.deepStrictEqual(events, fixture.events)
      }))
  }
})

describe("MessagesStreamState", () => {
  const ofType = (events: ReadonlyArray<unknown>, type: string) => Object(events.find((e) => Object(e).type === type))

  it("reports usage in the first event (estimated) and the provider's in the last", () => {
    const { events } = read("text.json")
    assert.deepInclude(ofType(events, "message_start").message.usage, { input_tokens: 7 })
    assert.deepStrictEqual(ofType(events, "message_delta").usage, {
      input_tokens: 12,
      output_tokens: 2,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0
    })
  })

  it("sends a fragment of a call whose block was stopped to that block", () => {
    const state = new MessagesStream.MessagesStreamState(options)
    const tool = (index: number, fn: Record<string, unknown>, id?: string) => ({
      id: "c",
      model: "m",
      choices: [{ index: 0, delta: { tool_calls: [{ index, ...(id === undefined ? {} : { id }), function: fn }] } }]
    })
    state.next(tool(0, { name: "a", arguments: "{" }, "call_a"))
    state.next(tool(1, { name: "b", arguments: "{}" }, "call_b"))
    const late = state.next(tool(0, { arguments: "}" }))
    assert.deepStrictEqual(late, [
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "}" } }
    ])
  })

  it("ends a stream that brought no chunk with a whole message", () => {
    const state = new MessagesStream.MessagesStreamState(options)
    assert.deepStrictEqual(state.end().map((event) => event.type), ["message_start", "message_delta", "message_stop"])
    assert.deepStrictEqual(state.next({ choices: [] }), [])
  })
})
