import { assert, describe, it } from "@effect/vitest"
import { GatewayError } from "@switchyard/core"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { ConfigProvider, Effect, Layer, Result } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AuthLive, createAndAuthenticate } from "../examples/AuthenticateKey.ts"
import { outcomes } from "../examples/GrantRule.ts"

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.effect("AuthenticateKey: a created key authenticates as its workspace and scopes", () =>
    Effect.gen(function*() {
      const dataDir = mkdtempSync(join(tmpdir(), "switchyard-auth-"))
      const noJwks = ConfigProvider.layer(ConfigProvider.fromUnknown({}))
      const principal = yield* createAndAuthenticate.pipe(Effect.provide(AuthLive(dataDir).pipe(Layer.provide(noJwks))))
      assert.strictEqual(principal.workspaceId, "ws-1")
      assert.deepStrictEqual([...principal.scopes], ["completions"])
      assert.match(principal.keyId, /^key_/)
    }))

  it("GrantRule: a key grants what it holds, and is refused a scope it lacks", () => {
    const { granted, refused } = outcomes
    assert.deepStrictEqual(granted, Result.succeed({ scopes: ["keys"], workspaceId: "ws-a" }))
    assert.isTrue(Result.isFailure(refused))
    const error = Result.isFailure(refused) ? refused.failure : undefined
    assert.instanceOf(error, GatewayError.Forbidden)
    assert.include(error?.message, `scopes: this key cannot grant "admin"`)
  })
})
