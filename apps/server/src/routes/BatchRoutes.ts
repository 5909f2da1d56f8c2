/**
 * /v1/batches (interface 4.4; extensions.md, "Files and batches"): create (`validating`, with the
 * request's provider selection, which the batch keeps for its lines; none: 400), get, list and
 * cancel, in the caller's workspace. The lines run in a batch worker (this server's unless
 * `GATEWAY_WORKER=off`, or the worker app).
 */
import { Batches } from "@switchyard/batches"
import { GatewayError } from "@switchyard/core"
import { Batch, InvalidInput, ListQuery } from "@switchyard/protocol"
import { Effect } from "effect"
import type { BodyDeadlines } from "../http/BodyDeadlines.ts"
import { body, param, type RouteInput } from "./ManagementRoute.ts"

type Handler<R> = (input: RouteInput) => Effect.Effect<unknown, GatewayError.GatewayError, R>
type Service = Batches.Batches

const createBody = body(Batch.CreateBatch)
const decodeListQuery = InvalidInput.decodeInput(ListQuery.ListQuery)
const workspace = (input: RouteInput) => input.principal.workspaceId
const withBatches = <A, E>(use: (batches: Service["Service"]) => Effect.Effect<A, E>) => Batches.Batches.use(use)

export const createBatch: Handler<Service | BodyDeadlines> = (input) =>
  Effect.flatMap(
    createBody(input.request),
    (request) =>
      withBatches((batches) =>
        batches.create({ principal: input.principal, headers: input.request.headers, body: request })
      )
  )

export const listBatches: Handler<Service> = (input) =>
  Effect.gen(function*() {
    const { limit, order, after, before } = Object.fromEntries(
      new URL(input.request.url, "http://gateway").searchParams
    )
    const present = Object.entries({ limit, order, after, before }).filter(([, value]) => value !== undefined)
    const query = yield* decodeListQuery(Object.fromEntries(present)).pipe(
      Effect.mapError((error) => new GatewayError.InvalidRequest({ message: error.message, param: error.param }))
    )
    return yield* withBatches((batches) => batches.list(workspace(input), query))
  })

export const getBatch: Handler<Service> = (input) =>
  withBatches((batches) => batches.get(workspace(input), param(input, "batch_id")))

export const cancelBatch: Handler<Service> = (input) =>
  withBatches((batches) => batches.cancel(workspace(input), param(input, "batch_id")))
