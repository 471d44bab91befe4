import type { ReactNode } from "react";

/** One fact of {@link Facts}: its name and value; a `null` value leaves the fact out. */
type Fact = readonly [term: string, value: ReactNode];

/** An item's facts ("Status", "Created", …) as a definition list, in the given order. */
export function Facts({ facts }: { facts: readonly Fact[] }) {
  return (
    <dl className="facts">
      {facts
        .filter(([, value]) => value !== null)
        .map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
    </dl>
  );
}
