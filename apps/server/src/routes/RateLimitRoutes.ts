/**
 * /v1/policies/rate-limits (extensions.md, "Rate-limit policies"): create, list, read, update and
 * archive, as for usage limits. Policies belong to the caller's workspace.
 */
import { GatewayError } from "@switchyard/core"
import { InvalidInput, RateLimitPolicy } from "@switchyard/protocol"
import { RatePolicies } from "@switchyard/usage-limits"
import { Effect, Schema } from "effect"
import type { BodyDeadlines } from "../http/BodyDeadlines.ts"
import { body, list, param, type RouteInput } from "./ManagementRoute.ts"

type Handler<R> = (input: RouteInput) => Effect.Effect<unknown, GatewayError.GatewayError, R>

const createBody = body(RateLimitPolicy.CreateRateLimitPolicy)
const updateBody = body(RateLimitPolicy.UpdateRateLimitPolicy)

/** `status` (default `active`) of the list and get routes. */
export const Query = Schema.Struct({ status: Schema.optionalKey(Schema.Literals(["active", "archived"])) })
const decodeQuery = InvalidInput.decodeInput(Query)

const statusOf = (input: RouteInput) =>
  decodeQuery(Object.fromEntries(new URL(input.request.url, "http://gateway").searchParams)).pipe(
    Effect.mapError((error) => new GatewayError.InvalidRequest({ message: error.message, param: error.param })),
    Effect.map((query) => query.status ?? "active")
  )

export const createPolicy: Handler<RatePolicies.RatePolicies | BodyDeadlines> = (input) =>
  Effect.gen(function*() {
    const request = yield* createBody(input.request)
    const created = yield* (yield* RatePolicies.RatePolicies).create(input.principal.workspaceId, request)
    return RatePolicies.toWire(created)
  })

export const listPolicies: Handler<RatePolicies.RatePolicies> = (input) =>
  Effect.gen(function*() {
    const status = yield* statusOf(input)
    const found = yield* (yield* RatePolicies.RatePolicies).list(input.principal.workspaceId, status)
    return list(found.map(RatePolicies.toWire))
  })

export const getPolicy: Handler<RatePolicies.RatePolicies> = (input) =>
  Effect.gen(function*() {
    const status = yield* statusOf(input)
    const policies = yield* RatePolicies.RatePolicies
    return RatePolicies.toWire(yield* policies.get(input.principal.workspaceId, param(input, "id"), status))
  })

export const updatePolicy: Handler<RatePolicies.RatePolicies | BodyDeadlines> = (input) =>
  Effect.gen(function*() {
    const request = yield* updateBody(input.request)
    const policies = yield* RatePolicies.RatePolicies
    return RatePolicies.toWire(yield* policies.update(input.principal.workspaceId, param(input, "id"), request))
  })

export const archivePolicy: Handler<RatePolicies.RatePolicies> = (input) =>
  RatePolicies.RatePolicies.use((policies) =>
    Effect.map(policies.archive(input.principal.workspaceId, param(input, "id")), RatePolicies.toWire)
  )
