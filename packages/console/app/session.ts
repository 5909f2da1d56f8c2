/**
 * The API key the console signs in with, kept in this tab's sessionStorage only: it goes when the
 * tab closes, no other tab sees it, and it never reaches localStorage or a cookie.
 */
const KEY = "switchyard.console.apiKey"

export const apiKey = (): string | null => sessionStorage.getItem(KEY)

export const signIn = (key: string): void => sessionStorage.setItem(KEY, key)

export const signOut = (): void => sessionStorage.removeItem(KEY)
