import { Principal } from "@switchyard/core"
import { Routes } from "@switchyard/server"
import { describe, expect, it } from "vitest"
import { call, createKey } from "./support/Admin.ts"
import { useGatewayAndFake } from "./support/Fixtures.ts"

const harness = useGatewayAndFake()

const allScopes = Principal.scopes.filter((scope) => scope !== "admin")

/** A concrete path for a route pattern. */
const concrete = (path: string) => path.replace(/:id/g, "no-such-object")

describe("every route in the table demands its scope", () => {
  for (const route of Routes.table) {
    const name = `${route.method} ${route.path}`
    if (route.scope === null) {
      it(`${name} answers without a key`, async () => {
        const answer = await call(harness.gateway.baseUrl, route.method, concrete(route.path), { key: "" })
        expect(answer.status).toBe(200)
      })
      continue
    }
    const scope = route.scope
    it(`${name} answers 401 without a key, 403 without "${scope}", and lets "${scope}" through`, async () => {
      const path = concrete(route.path)
      const body = route.method === "POST" || route.method === "PUT" ? {} : undefined
      const anonymous = await call(harness.gateway.baseUrl, route.method, path, { key: "", body })
      expect(anonymous.status).toBe(401)
      const without = await createKey(harness.gateway.baseUrl, allScopes.filter((s) => s !== scope))
      const denied = await call(harness.gateway.baseUrl, route.method, path, { key: without, body })
      expect(denied.status).toBe(403)
      expect(denied.body.error.message).toContain(scope)
      const withScope = await createKey(harness.gateway.baseUrl, [scope])
      const allowed = await call(harness.gateway.baseUrl, route.method, path, { key: withScope, body })
      expect([401, 403]).not.toContain(allowed.status)
    })
  }
})
