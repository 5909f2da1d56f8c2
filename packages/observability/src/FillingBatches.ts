/**
 * A bounded queue of batches that fill as records come, for a writer off the request path (the
 * OTLP span exporter, the request log): a record is written into the batch being filled, which
 * joins the full ones once it holds `batchSize`; the writer takes the oldest full batch, or the one
 * being filled however few it holds. Past `limit` records waiting, `filling` answers none and the
 * caller drops (and counts) the record. Synchronous: the request path never waits on it.
 *
 * @example
 * import { FillingBatches } from "@switchyard/observability"
 *
 * class Lines { count = 0; length = 0; readonly lines: Array<string> = [] }
 * const queue = new FillingBatches.FillingBatches({ batchSize: 500, limit: 10_000, make: () => new Lines() })
 * const batch = queue.filling()
 * if (batch !== undefined) {
 *   batch.lines.push("a record")
 *   batch.count++
 *   queue.added()
 * }
 */
import { Latch } from "effect"

/** A batch: how many records it holds, and how many bytes they took (its next one starts that large). */
export interface Batch {
  readonly count: number
  readonly length: number
}

export interface Options<B extends Batch> {
  /** Records a batch holds; one that holds as many is full. */
  readonly batchSize: number
  /** Records waiting, in every batch, past which new ones are refused. */
  readonly limit: number
  /** A new batch, starting at `capacity` bytes: what the last full one took, and an eighth more. */
  readonly make: (capacity: number) => B
  /** The first batch's capacity. */
  readonly capacity?: number | undefined
}

export class FillingBatches<B extends Batch> {
  /** Open while a full batch waits: the writer waits on it between its rounds. */
  readonly fullWaiting = Latch.makeUnsafe(false)
  private recordsWaiting = 0
  private readonly full: Array<B> = []
  private current: B | undefined = undefined
  private capacity: number
  private readonly options: Options<B>

  constructor(options: Options<B>) {
    this.options = options
    this.capacity = options.capacity ?? 16 * 1024
  }

  /** Records waiting, in every batch. */
  get waiting(): number {
    return this.recordsWaiting
  }

  /** How many batches wait: the full ones and the one being filled. */
  get batches(): number {
    return this.full.length + (this.current === undefined ? 0 : 1)
  }

  /** Whether a full batch waits. */
  get hasFull(): boolean {
    return this.full.length > 0
  }

  /** The batch to write the next record into; none when `limit` records wait. */
  filling(): B | undefined {
    if (this.recordsWaiting >= this.options.limit) return undefined
    return this.current ??= this.options.make(this.capacity)
  }

  /** Counts the record just written into {@link filling}'s batch; a batch now full joins the full ones. */
  added(): void {
    this.recordsWaiting++
    const batch = this.current
    if (batch === undefined || batch.count < this.options.batchSize) return
    this.capacity = Math.max(this.capacity, batch.length + (batch.length >> 3))
    this.full.push(batch)
    this.current = undefined
    this.fullWaiting.openUnsafe()
  }

  /** The oldest full batch, else the one being filled, however few it holds; none when empty. */
  take(): B | undefined {
    let batch = this.full.shift()
    if (batch === undefined && this.current !== undefined) {
      batch = this.current
      this.current = undefined
    }
    if (this.full.length === 0) this.fullWaiting.closeUnsafe()
    if (batch !== undefined) this.recordsWaiting -= batch.count
    return batch
  }
}
