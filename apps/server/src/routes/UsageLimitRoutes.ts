/**
 * /v1/policies/usage-limits (interface 4.7, 4.8; extensions.md, "Usage-limit policies"): create,
 * list, read (with `value_key_usage_map` on `include_usage=true`), update, archive and reset.
 * Policies belong to the caller's workspace; only an admin key may name another.
 */
import { GatewayError, Principal } from "@switchyard/core"
import { InvalidInput, UsageLimitsPolicy } from "@switchyard/protocol"
import { UsageCounters, UsageLimits, UsagePolicies } from "@switchyard/usage-limits"
import { Effect, Schema } from "effect"
import type { BodyDeadlines } from "../http/BodyDeadlines.ts"
import { body, list, param, type RouteInput } from "./ManagementRoute.ts"

type Handler<R> = (input: RouteInput) => Effect.Effect<unknown, GatewayError.GatewayError, R>

const createBody = body(UsageLimitsPolicy.CreateUsageLimitsPolicy)
const updateBody = body(UsageLimitsPolicy.UpdateUsageLimitsPolicy)

const Query = Schema.Struct({
  status: Schema.optionalKey(Schema.Literals(["active", "archived"])),
  include_usage: Schema.optionalKey(Schema.Literals(["true", "false"]))
})
const decodeQuery = InvalidInput.decodeInput(Query)

const queryOf = (input: RouteInput) =>
  decodeQuery(Object.fromEntries(new URL(input.request.url, "http://gateway").searchParams)).pipe(
    Effect.mapError((error) => new GatewayError.InvalidRequest({ message: error.message, param: error.param })),
    Effect.map((query) => ({ status: query.status ?? "active", includeUsage: query.include_usage === "true" }))
  )

const unavailable = (error: UsageCounters.CounterStoreError) =>
  Effect.andThen(
    Effect.logError(`usage-limit policies: ${error.message}`),
    Effect.fail(new GatewayError.Unavailable({ message: "the usage counters are unreachable" }))
  )

export const createPolicy: Handler<UsagePolicies.UsagePolicies | BodyDeadlines> = (input) =>
  Effect.gen(function*() {
    const request = yield* createBody(input.request)
    const workspaceId = request.workspace_id ?? input.principal.workspaceId
    if (workspaceId !== input.principal.workspaceId && !Principal.hasScope(input.principal, "admin")) {
      return yield* new GatewayError.Forbidden({
        message: "workspace_id: only an admin key may name another workspace"
      })
    }
    const created = yield* (yield* UsagePolicies.UsagePolicies).create(workspaceId, request)
    return { id: created.id, object: "policy_usage_limits" as const }
  })

export const listPolicies: Handler<UsagePolicies.UsagePolicies> = (input) =>
  Effect.gen(function*() {
    const query = yield* queryOf(input)
    const found = yield* (yield* UsagePolicies.UsagePolicies).list(input.principal.workspaceId, query.status)
    return list(found.map((policy) => UsagePolicies.toWire(policy)))
  })

export const getPolicy: Handler<UsagePolicies.UsagePolicies | UsageCounters.UsageCounters> = (input) =>
  Effect.gen(function*() {
    const query = yield* queryOf(input)
    const policies = yield* UsagePolicies.UsagePolicies
    const policy = yield* policies.get(input.principal.workspaceId, param(input, "id"), query.status)
    if (!query.includeUsage) return UsagePolicies.toWire(policy)
    const usage = yield* Effect.catchTag(UsageLimits.usageMap(policy), "CounterStoreError", unavailable)
    return UsagePolicies.toWire(policy, usage)
  })

export const updatePolicy: Handler<UsagePolicies.UsagePolicies | BodyDeadlines> = (input) =>
  Effect.gen(function*() {
    const request = yield* updateBody(input.request)
    const updated = yield* (yield* UsagePolicies.UsagePolicies).update(
      input.principal.workspaceId,
      param(input, "id"),
      request
    )
    return UsagePolicies.toWire(updated)
  })

export const archivePolicy: Handler<UsagePolicies.UsagePolicies> = (input) =>
  UsagePolicies.UsagePolicies.use((policies) =>
    Effect.map(
      policies.archive(input.principal.workspaceId, param(input, "id")),
      (policy) => UsagePolicies.toWire(policy)
    )
  )

export const resetPolicy: Handler<UsagePolicies.UsagePolicies> = (input) =>
  UsagePolicies.UsagePolicies.use((policies) =>
    Effect.map(
      policies.reset(input.principal.workspaceId, param(input, "id")),
      (policy) => UsagePolicies.toWire(policy)
    )
  )
