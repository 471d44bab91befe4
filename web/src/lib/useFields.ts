import { useState } from "react";

/**
 * The values of a form's fields, starting from `initial`: `bind(name)` gives a text or select
 * field its `value` and `onChange`, `set(name)` is the setter of any field (e.g. a checkbox's
 * `onChange`), and `reset` puts the initial values back (after a successful submit).
 */
export function useFields<T extends Record<string, unknown>>(initial: T) {
  const [values, setValues] = useState(initial);
  const set =
    <K extends keyof T>(name: K) =>
    (value: T[K]) =>
      setValues((prev) => ({ ...prev, [name]: value }));
  return {
    values,
    set,
    bind: <K extends keyof T>(name: K) => ({ value: values[name], onChange: set(name) }),
    reset: () => setValues(initial),
  };
}

/** The given values trimmed, leaving out the blank ones (the server refuses empty optional strings). */
export function nonBlank<K extends string>(values: Record<K, string>): Partial<Record<K, string>> {
  return Object.fromEntries(
    Object.entries<string>(values)
      .map(([name, value]) => [name, value.trim()])
      .filter(([, value]) => value !== ""),
  ) as Partial<Record<K, string>>;
}
