import { useEffect, type ReactNode } from "react";
import { Heading } from "./Page";

/** A console page: sets the document title and renders the <h1> (focused when the page appears). */
export function AdminPage({
  title,
  heading,
  intro,
  breadcrumb,
  children,
}: {
  title: string;
  heading?: ReactNode;
  intro?: ReactNode;
  /** A link up (e.g. "← All apps"), above the heading. */
  breadcrumb?: ReactNode;
  children: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · Tollgate console`;
  }, [title]);
  return (
    <>
      {breadcrumb && <p className="breadcrumb">{breadcrumb}</p>}
      <Heading focus>{heading ?? title}</Heading>
      {intro && <p className="muted page-intro">{intro}</p>}
      {children}
    </>
  );
}
