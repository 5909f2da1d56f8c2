/**
 * @since 0.1.0
 */
export * as Pipeline from "./Pipeline.ts"
