import { assert, describe, it } from "@effect/vitest"
import { Grant } from "@switchyard/auth"
import { GatewayError, Principal } from "@switchyard/core"
import { Result } from "effect"
import fc from "fast-check"

const OWN = "ws-own"
const OTHER = "ws-other"
const SEED = 20_261_121

const principal = (scopes: Iterable<Principal.Scope>): Principal.Principal => ({
  keyId: "key_caller",
  workspaceId: OWN,
  scopes: new Set(scopes)
})

/** Every subset of the scopes: 2^12 callers, admin and not. */
const everySubset: ReadonlyArray<ReadonlyArray<Principal.Scope>> = Array.from(
  { length: 2 ** Principal.scopes.length },
  (_, mask) => Principal.scopes.filter((_, bit) => (mask & (1 << bit)) !== 0)
)

/** The rule as extensions.md words it, written independently of the module under test. */
const allowed = (
  caller: ReadonlyArray<Principal.Scope>,
  wanted: ReadonlyArray<Principal.Scope>,
  sameWorkspace: boolean
) => caller.includes("admin") || (sameWorkspace && wanted.every((scope) => caller.includes(scope)))

const forbiddenMessage = (result: Result.Result<Grant.Grant, GatewayError.Forbidden>): string => {
  if (Result.isSuccess(result)) return assert.fail("expected Forbidden")
  assert.instanceOf(result.failure, GatewayError.Forbidden)
  assert.strictEqual(GatewayError.toHttp(result.failure).status, 403)
  return result.failure.message
}

const caller = fc.subarray([...Principal.scopes])
const wanted = fc.array(fc.constantFrom(...Principal.scopes), { minLength: 1, maxLength: 16 })
const workspace = fc.constantFrom<string | undefined>(undefined, OWN, OTHER)

describe("Grant.toCreate", () => {
  it("decides every caller's scope set against every single scope, in its own and another workspace", () => {
    let checked = 0
    for (const held of everySubset) {
      for (const scope of Principal.scopes) {
        for (const workspaceId of [OWN, OTHER]) {
          const result = Grant.toCreate(principal(held), { scopes: [scope], workspace_id: workspaceId })
          assert.strictEqual(
            Result.isSuccess(result),
            allowed(held, [scope], workspaceId === OWN),
            `${held} -> ${scope}`
          )
          checked += 1
        }
      }
    }
    assert.strictEqual(checked, 4096 * 12 * 2)
  })

  it("allows a request exactly when the caller is admin, or holds every scope asked in its own workspace", () => {
    fc.assert(
      fc.property(caller, wanted, workspace, (held, scopes, workspaceId) => {
        const result = Grant.toCreate(principal(held), { scopes, workspace_id: workspaceId })
        const same = workspaceId === undefined || workspaceId === OWN
        assert.strictEqual(Result.isSuccess(result), allowed(held, scopes, same))
      }),
      { seed: SEED, numRuns: 20_000 }
    )
  })

  it("grants what was asked, in the named workspace or else the caller's", () => {
    fc.assert(
      fc.property(caller, wanted, workspace, (held, scopes, workspaceId) => {
        const result = Grant.toCreate(principal(held), { scopes, workspace_id: workspaceId })
        if (Result.isFailure(result)) return
        assert.deepStrictEqual(result.success, { scopes, workspaceId: workspaceId ?? OWN })
      }),
      { seed: SEED }
    )
  })

  it("names the other workspace when a non-admin key asks for it", () => {
    fc.assert(
      fc.property(caller.filter((held) => !held.includes("admin")), wanted, (held, scopes) => {
        const message = forbiddenMessage(Grant.toCreate(principal(held), { scopes, workspace_id: OTHER }))
        assert.include(message, `"${OTHER}"`)
        assert.match(message, /^workspace_id: /)
      }),
      { seed: SEED }
    )
  })

  it("names every scope the caller lacks, and none it holds", () => {
    fc.assert(
      fc.property(caller, wanted, (held, scopes) => {
        const result = Grant.toCreate(principal(held), { scopes })
        if (allowed(held, scopes, true)) return
        const message = forbiddenMessage(result)
        assert.match(message, /^scopes: /)
        for (const scope of scopes) {
          assert.strictEqual(message.includes(`"${scope}"`), !held.includes(scope), scope)
        }
      }),
      { seed: SEED }
    )
  })

  it("refuses the escalation of the report: keys and configs asking for admin", () => {
    const message = forbiddenMessage(Grant.toCreate(principal(["keys", "configs"]), { scopes: ["admin"] }))
    assert.include(message, "\"admin\"")
  })

  it("lets a key with keys hand on keys, or any part of what it holds", () => {
    const held = principal(["keys", "completions", "logs.read"])
    for (
      const scopes of [["keys"], ["completions"], ["keys", "logs.read"], ["keys", "completions", "logs.read"]] as const
    ) {
      assert.isTrue(Result.isSuccess(Grant.toCreate(held, { scopes })), scopes.join(" "))
    }
  })
})

describe("Grant.toCreate and expiry", () => {
  const expiring = (scopes: ReadonlyArray<Principal.Scope>, expiresAt: number): Principal.Principal => ({
    ...principal(scopes),
    expiresAt
  })

  it("lets an expiring key, admin or not, create only keys that expire no later than itself", () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.integer({ min: 1, max: 2_000_000_000 }),
        fc.option(fc.integer({ min: 1, max: 2_000_000_000 }), { nil: null }),
        (admin, expiresAt, requested) => {
          const result = Grant.toCreate(expiring(admin ? ["admin"] : ["keys"], expiresAt), {
            scopes: ["keys"],
            expires_at: requested
          })
          assert.strictEqual(Result.isSuccess(result), requested !== null && requested <= expiresAt)
        }
      ),
      { seed: SEED }
    )
  })

  it("names the expiry when an expiring key asks for a key that never expires", () => {
    const message = forbiddenMessage(Grant.toCreate(expiring(["admin"], 1_900_000_000), { scopes: ["keys"] }))
    assert.include(message, "expires_at: this key expires at 1900000000")
  })

  it("leaves a key that never expires free to choose any expiry, or none", () => {
    for (const expires_at of [undefined, null, 1, 2_000_000_000]) {
      assert.isTrue(Result.isSuccess(Grant.toCreate(principal(["keys"]), { scopes: ["keys"], expires_at })))
    }
  })
})

describe("Grant.toRevoke", () => {
  it("decides every caller's scope set against every single-scope key, in its own and another workspace", () => {
    for (const held of everySubset) {
      for (const scope of Principal.scopes) {
        for (const workspaceId of [OWN, OTHER]) {
          const result = Grant.toRevoke(principal(held), { scopes: [scope], workspaceId })
          assert.strictEqual(
            Result.isSuccess(result),
            allowed(held, [scope], workspaceId === OWN),
            `${held} -x ${scope}`
          )
        }
      }
    }
  })

  it("allows revoking exactly when the caller is admin, or holds every scope of the key in its own workspace", () => {
    fc.assert(
      fc.property(caller, wanted, fc.constantFrom(OWN, OTHER), (held, scopes, workspaceId) => {
        const result = Grant.toRevoke(principal(held), { scopes, workspaceId })
        assert.strictEqual(Result.isSuccess(result), allowed(held, scopes, workspaceId === OWN))
        if (Result.isFailure(result)) assert.strictEqual(GatewayError.toHttp(result.failure).status, 403)
      }),
      { seed: SEED, numRuns: 20_000 }
    )
  })

  it("lets any key revoke a key like itself", () => {
    fc.assert(
      fc.property(caller.filter((held) => held.length > 0), (held) => {
        assert.isTrue(Result.isSuccess(Grant.toRevoke(principal(held), { scopes: held, workspaceId: OWN })))
      }),
      { seed: SEED }
    )
  })
})

describe("Grant.missingScopes", () => {
  it("is empty for admin and otherwise the asked scopes not held, once each", () => {
    fc.assert(
      fc.property(caller, wanted, (held, scopes) => {
        const expected = held.includes("admin") ? [] : [...new Set(scopes)].filter((scope) => !held.includes(scope))
        assert.deepStrictEqual(Grant.missingScopes(principal(held), scopes), expected)
      }),
      { seed: SEED }
    )
  })
})
