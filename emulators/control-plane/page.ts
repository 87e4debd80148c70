/** A page of a listing: `offset` is the one to send for the next page; an empty page ends it. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly offset: number;
}

export const page = <T>(items: readonly T[], offset: number): Page<T> => ({ items, offset: offset + items.length });
