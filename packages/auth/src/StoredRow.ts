/**
 * Column codecs shared by the repositories: what SQLite and Postgres hand back differs (a BIGINT
 * arrives as a string from Postgres, as a number from SQLite), and rows are decoded at the
 * boundary like any other input.
 */
import { Schema } from "effect"

/** Unix seconds, from a number or a numeric string. */
export const Timestamp = Schema.Union([Schema.Finite, Schema.NumberFromString])

export const NullableTimestamp = Schema.NullOr(Timestamp)
