export * as FileContents from "./FileContents.ts"
export * as FileStore from "./FileStore.ts"
export * as JsonLines from "./JsonLines.ts"
export * as OrphanSweep from "./OrphanSweep.ts"
