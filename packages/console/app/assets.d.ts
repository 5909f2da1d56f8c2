/** Vite bundles the style sheet a module imports into assets/console.css. */
declare module "*.css" {}
