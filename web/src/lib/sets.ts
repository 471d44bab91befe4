/** A copy of `set` with `item` added (`on`) or removed: the next state of a group of checkboxes. */
export function toggled<T>(set: ReadonlySet<T>, item: T, on: boolean): Set<T> {
  const next = new Set(set);
  if (on) next.add(item);
  else next.delete(item);
  return next;
}
