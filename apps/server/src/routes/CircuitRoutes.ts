/**
 * GET /v1/circuits: each target's circuit as this process knows it (circuit-breaker's
 * `CircuitBoard`), for an operator or the console. Admin only: circuits are the gateway's, not a
 * workspace's, and a circuit names the host and model of whichever workspace's target it guards.
 */
import { CircuitBoard } from "@switchyard/circuit-breaker"
import { Effect } from "effect"
import { list, type RouteInput } from "./ManagementRoute.ts"

export const listCircuits = (_input: RouteInput) =>
  CircuitBoard.CircuitBoard.use((board) => Effect.map(board.list, list))
