/**
 * What a request claims of each matching usage policy (the upper bound it reserves and how its
 * usage is measured), and how those claims settle to the real usage afterwards.
 */
import type { Endpoint, GatewayRequest, ProviderTarget } from "@switchyard/core"
import { Effect } from "effect"
import * as Metering from "../Metering.ts"
import type { Reservation, Settlement, UsageCounters } from "../UsageCounters.ts"
import { describePolicy, UnpricedModel, UsageLimitExceeded } from "../UsageLimitErrors.ts"
import type { UsagePolicy } from "../UsagePolicies.ts"
import * as Matching from "./Matching.ts"
import * as Periods from "./Periods.ts"

/** The facts of a request at one leaf; `provider` is the stored credential's own for `@slug` and virtual keys. */
export const factsOf = (
  target: ProviderTarget.ProviderTarget,
  request: GatewayRequest.GatewayRequest,
  provider: string,
  /** The virtual key's id, resolved from its token by `StoredProviders`: never the token, a credential. */
  virtualKeyId?: string | undefined
): Matching.Facts => {
  const model = request.body.model
  return {
    api_key: request.context.principal.keyId,
    workspace_id: request.context.principal.workspaceId,
    virtual_key: target.virtual_key === undefined ? undefined : virtualKeyId,
    provider,
    model: typeof model === "string" ? model : undefined,
    integration: target.provider.startsWith("@") && target.provider.length > 1 ? target.provider.slice(1) : undefined,
    metadata: request.context.metadata
  }
}

/** One matched policy, with what the request reserves on it and how its usage is measured. */
export interface Claim {
  readonly policy: UsagePolicy
  readonly reservation: Reservation
  readonly measure: (tokens: Metering.Tokens) => number
}

export const claimsOf = (
  policies: ReadonlyArray<UsagePolicy>,
  facts: Matching.Facts,
  /** A stored credential's own prices, which win over the catalog's. */
  ownPrice: Metering.Price | undefined,
  endpoint: Endpoint.Endpoint,
  body: GatewayRequest.JsonObject,
  now: number
): { readonly claims: ReadonlyArray<Claim>; readonly bound: Metering.Tokens } | UnpricedModel => {
  const claims: Array<Claim> = []
  const model = facts.model ?? ""
  const bound = Metering.boundOf(endpoint, body, Metering.contextLengthOf(facts.provider, model))
  for (const policy of policies) {
    if (!Matching.matches(policy.conditions, facts)) continue
    let measure: (tokens: Metering.Tokens) => number = Metering.totalOf
    if (policy.type === "cost") {
      const price = ownPrice ?? Metering.catalogPrice(facts.provider, model)
      if (price === undefined) {
        return new UnpricedModel({ policyId: policy.id, policyName: policy.name, provider: facts.provider, model })
      }
      measure = (tokens) => Metering.costOf(price, tokens)
    }
    const period = Periods.periodAt(policy.periodicReset, now)
    const valueKey = Matching.valueKey(policy.groupBy, facts)
    claims.push({
      policy,
      measure,
      reservation: {
        counter: `${policy.id}:${policy.epoch}:${period.id}`,
        workspaceId: policy.workspaceId,
        policyId: policy.id,
        valueKey,
        limit: policy.creditLimit,
        // an unbounded call reserves the whole limit: nothing else is admitted until it settles
        amount: Math.min(measure(bound), policy.creditLimit),
        periodEnd: period.end
      }
    })
  }
  return { claims, bound }
}

export const exceeded = (claim: Claim): UsageLimitExceeded =>
  new UsageLimitExceeded({
    policyId: claim.policy.id,
    policyName: claim.policy.name,
    type: claim.policy.type,
    creditLimit: claim.policy.creditLimit,
    valueKey: claim.reservation.valueKey
  })

/** No usage: what a refused, failed or cached request settles to. */
export const NOTHING: Metering.Tokens = { promptTokens: 0, completionTokens: 0 }

export const settlementsOf = (claims: ReadonlyArray<Claim>, used: Metering.Tokens): Array<Settlement> =>
  claims.map((claim) => ({
    counter: claim.reservation.counter,
    workspaceId: claim.reservation.workspaceId,
    valueKey: claim.reservation.valueKey,
    reserved: claim.reservation.amount,
    used: claim.measure(used),
    alertThreshold: claim.policy.alertThreshold,
    periodEnd: claim.reservation.periodEnd
  }))

/** Logs each policy whose alert threshold a settlement crossed (`crossed`: indexes into `claims`). */
export const alerts = (claims: ReadonlyArray<Claim>, crossed: ReadonlyArray<number>): Effect.Effect<void> =>
  Effect.forEach(crossed, (index) => {
    const claim = claims[index]
    return claim === undefined ? Effect.void : Effect.logWarning(
      `usage-limit policy ${describePolicy(claim.policy.id, claim.policy.name)} crossed its alert threshold ` +
        `(${claim.policy.alertThreshold}) for ${claim.reservation.valueKey}`
    )
  }, { discard: true })

export const settleAll = (
  counters: UsageCounters["Service"],
  reservationId: string,
  claims: ReadonlyArray<Claim>,
  used: Metering.Tokens
): Effect.Effect<void> => {
  const settlements = settlementsOf(claims, used)
  const answered = (crossed: ReadonlyArray<number>) => crossed.length === 0 ? Effect.void : alerts(claims, crossed)
  if (counters.settleSent !== undefined) return counters.settleSent(reservationId, settlements, answered)
  return counters.settle(reservationId, settlements).pipe(
    Effect.flatMap(answered),
    // the answer has gone out already: a settlement that cannot be written is logged, not answered
    Effect.catchTag("CounterStoreError", (error) => Effect.logError(`usage limits: cannot settle: ${error.message}`))
  )
}
