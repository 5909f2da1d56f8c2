import { assert, describe, it } from "@effect/vitest"
import { GatewayResponse } from "@switchyard/core"

const bytes = new TextEncoder().encode("{\"id\":\"chatcmpl-1\",\"choices\":[]}")

describe("GatewayResponse.JsonResponse", () => {
  it("writes the provider's own bytes while the body is theirs", () => {
    const answer = GatewayResponse.fromJsonBytes(bytes, { headers: { a: "1" } })
    assert.strictEqual(answer?.text(), bytes)
    assert.deepStrictEqual(answer?.body(), { id: "chatcmpl-1", choices: [] })
    const labelled = answer?.withHeaders({ b: "2" })
    assert.strictEqual(labelled?.text(), bytes)
    assert.deepStrictEqual(labelled?.headers, { a: "1", b: "2" })
  })

  it("lets the provider's bytes go with a new body, so stale bytes are never written", () => {
    const answer = GatewayResponse.fromJsonBytes(bytes)
    const changed = answer?.withBody({ id: "chatcmpl-1", choices: [], hook_results: {} })
    assert.strictEqual(changed?.text(), "{\"id\":\"chatcmpl-1\",\"choices\":[],\"hook_results\":{}}")
  })

  it("refuses bytes that are not JSON", () => {
    assert.isUndefined(GatewayResponse.fromJsonBytes(new TextEncoder().encode("{\"id\":")))
  })

  it("cannot be copied into an object literal with another body", () => {
    const answer = GatewayResponse.json({ id: "x" })
    // @ts-expect-error a copied literal is no JsonResponse: the private bytes cannot ride along
    const copied: GatewayResponse.JsonResponse = { ...answer, body: () => ({ id: "y" }) }
    assert.isFalse(copied instanceof GatewayResponse.JsonResponse)
  })
})
