import { useEffect, useRef, type ReactNode } from "react";
import { brand } from "../lib/brand";

/**
 * The page frame: the bank's brand (lib/brand.ts: its logo, or its name), then the page's
 * content in a centered card (`wide`: a wider one). The document title is the page's, then
 * the bank's name.
 */
export function Page({ title, wide = false, children }: { title: string; wide?: boolean; children: ReactNode }) {
  useEffect(() => {
    document.title = title === brand.name ? title : `${title} · ${brand.name}`;
  }, [title]);
  return (
    <>
      <header className={wide ? "site-header wide" : "site-header"}>
        <p className="brand">{brand.logoUrl ? <img className="brand-logo" src={brand.logoUrl} alt={brand.name} /> : brand.name}</p>
      </header>
      <main className={wide ? "page wide" : "page"}>
        <div className="card">{children}</div>
      </main>
    </>
  );
}

/**
 * The page's <h1>. With `focus`, it takes keyboard focus when it appears, so that screen
 * reader and keyboard users start at the new content after the SPA changes page.
 */
export function Heading({ children, focus = false }: { children: ReactNode; focus?: boolean }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focus) ref.current?.focus();
  }, [focus]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** Shown while the interaction loads. */
export function Loading({ title }: { title: string }) {
  return (
    <Page title={title}>
      <p role="status" className="muted">
        Loading…
      </p>
    </Page>
  );
}

/** The interaction could not be loaded for a reason that may pass (network, server error). */
export function LoadFailed({ title, message, onRetry }: { title: string; message: string; onRetry: () => void }) {
  return (
    <Page title={title}>
      <Heading focus>We couldn't load this page</Heading>
      <p role="alert" className="alert">
        {message}
      </p>
      <div className="actions">
        <button type="button" className="button primary" onClick={onRetry}>
          Try again
        </button>
      </div>
    </Page>
  );
}

/** The page was opened without ?interaction=… */
export function IncompleteLink({ heading }: { heading: string }) {
  return (
    <Page title={heading}>
      <Heading focus>{heading}</Heading>
      <p>
        This page must be opened from the app you are signing in to. Go back to that app and start again.
      </p>
    </Page>
  );
}
