/** Lists written briefly: the generators name long sets of words and build long arrays by index. */

/** The words of a text, split on single spaces. */
export const words = (text: string): ReadonlyArray<string> => text.split(" ")

/** `count` items, the item at each index made by `item`. */
export const many = <A>(count: number, item: (index: number) => A): Array<A> =>
  Array.from({ length: count }, (_, i) => item(i))
