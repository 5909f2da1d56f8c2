import { assert, describe, it } from "@effect/vitest"
import { CacheKey } from "@switchyard/cache"
import * as Upstream from "./support/Upstream.ts"

const scope = { workspace: "ws", namespace: "", target: "t" }

describe("CacheKey", () => {
  it("is the same whatever the order of keys, at any depth", () => {
    assert.strictEqual(
      CacheKey.canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } }),
      "{\"a\":{\"c\":null,\"d\":[1,{\"x\":1,\"y\":2}]},\"b\":1}"
    )
  })

  it("ignores stream, stream_options, user and metadata", () => {
    const plain = CacheKey.simple(Upstream.request({ body: Upstream.ask("x") }), scope)
    const streamed = CacheKey.simple(
      Upstream.request({
        body: Upstream.ask("x", {
          stream: true,
          stream_options: { include_usage: true },
          user: "u",
          metadata: { a: "b" }
        })
      }),
      scope
    )
    assert.strictEqual(plain, streamed)
  })

  it("differs by workspace, namespace and target", () => {
    const request = Upstream.request({})
    const keys = new Set([
      CacheKey.simple(request, scope),
      CacheKey.simple(request, { ...scope, workspace: "other" }),
      CacheKey.simple(request, { ...scope, namespace: "n" }),
      CacheKey.simple(request, { ...scope, target: "u" })
    ])
    assert.strictEqual(keys.size, 4)
  })

  it("names a target by a hash that shows none of its fields", () => {
    const id = CacheKey.targetId({ provider: "@", virtual_key: "vk-secret", custom_host: "https://h.example" })
    assert.match(id, /^[0-9a-f]{16}$/)
    assert.notStrictEqual(id, CacheKey.targetId({ provider: "@", virtual_key: "vk-other" }))
    assert.strictEqual(
      CacheKey.targetId({ provider: "openai", api_key: "a" }),
      CacheKey.targetId({ provider: "openai", api_key: "b" })
    )
  })

  it("splits a short chat into its last user text and a partition of the rest", () => {
    const parts = CacheKey.semantic(Upstream.request({ body: Upstream.ask("hello") }), scope, "e")
    assert.strictEqual(parts?.text, "hello")
    assert.strictEqual(
      parts?.partition,
      CacheKey.semantic(Upstream.request({ body: Upstream.ask("bye") }), scope, "e")?.partition
    )
    assert.notStrictEqual(
      parts?.partition,
      CacheKey.semantic(Upstream.request({ body: Upstream.ask("bye") }), scope, "f")?.partition
    )
  })
})
