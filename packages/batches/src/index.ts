export * as Batches from "./Batches.ts"
export * as BatchInput from "./BatchInput.ts"
export * as BatchQueue from "./BatchQueue.ts"
export * as BatchWorker from "./BatchWorker.ts"
