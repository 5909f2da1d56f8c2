export * as ConsolePage from "./ConsolePage.ts"
