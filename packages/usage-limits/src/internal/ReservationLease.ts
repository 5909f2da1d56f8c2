import { Context, Duration } from "effect"
import { randomBytes } from "node:crypto"

/**
 * How long a reservation in a store shared by replicas (`layerSql`, Redis) holds before it is
 * given back unsettled (`GATEWAY_LIMITS_RESERVATION_LEASE_SECONDS`). It must outlast the longest
 * request: a request still running when its lease lapses no longer holds its reservation (it
 * still settles its real usage at its end), so until then concurrent requests could overshoot the
 * limit by its bound. The default, 15 minutes, is well past what a JSON answer can take (each
 * upstream attempt is bounded by `request_timeout`); only a stream can run longer. Leases are
 * compared with each replica's clock: replicas' clocks must agree to well within it.
 */
export const ReservationLease = Context.Reference<Duration.Duration>(
  "@switchyard/usage-limits/UsageCounters/ReservationLease",
  { defaultValue: () => Duration.minutes(15) }
)

/**
 * Reservation ids unique across replicas without a random draw per request: this process's random
 * prefix and a sequence number.
 */
export const reservationIds = (): () => string => {
  const processId = randomBytes(8).toString("hex")
  let sequence = 0
  return () => `${processId}-${(sequence++).toString(36)}`
}
