import { useId, type ReactNode } from "react";

/** A titled section of a console page (an <h2> card); `actions` sit on the right of the title. */
export function Panel({
  title,
  actions,
  children,
  id,
}: {
  title: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  /** Element id, for a link or a script to reach the panel. */
  id?: string;
}) {
  const headingId = useId();
  return (
    <section id={id} className="panel" aria-labelledby={headingId}>
      <div className="panel-head">
        <h2 id={headingId}>{title}</h2>
        {actions && <div className="panel-actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}
