import { Suspense, useEffect, useRef, useState, type FormEvent } from "react";
import { NavLink, Outlet, useLocation, useNavigate } from "react-router";
import { NAME_MAX_LENGTH } from "../../../server/src/kernel/limits";
import { PENDING_REGISTRATION_COUNT } from "../api/admin";
import { countBadge, onPendingRegistrationsChanged } from "../lib/navigation";
import { patterns, routes } from "../lib/routes";
import { useQuery } from "../lib/useGraphQL";
import { readSearchText } from "../lib/search";
import { useSession } from "../lib/session";
import { SignOutButton } from "./SignOutButton";

const LINKS = [
  { to: routes.dashboard(), label: "Dashboard", end: true },
  { to: routes.organizations(), label: "Organizations" },
  { to: routes.apps(), label: "Apps" },
  { to: routes.registrations(), label: "Registrations", badge: "pending" },
  { to: routes.products(), label: "API products" },
  { to: routes.users(), label: "Users" },
  { to: routes.tokens(), label: "Tokens" },
  { to: routes.psd2Consents(), label: "PSD2 consents" },
  { to: routes.audit(), label: "Audit log" },
  { to: routes.signingKeys(), label: "Signing keys" },
  { to: routes.identityProviders(), label: "Identity providers" },
];

/**
 * How many dynamic registrations wait for approval: read when the console opens, on every page
 * change, and when a page says the queue changed (lib/navigation.ts pendingRegistrationsChanged).
 */
function usePendingRegistrationCount(): number | undefined {
  const { pathname } = useLocation();
  const { data, reload } = useQuery(PENDING_REGISTRATION_COUNT);
  const opened = useRef(pathname);
  useEffect(() => {
    // The query itself reads it when the console opens; again on each page change after that.
    if (opened.current === pathname) return;
    opened.current = "";
    reload();
  }, [pathname, reload]);
  useEffect(() => onPendingRegistrationsChanged(reload), [reload]);
  return data?.pendingRegistrationCount;
}

/** A navigation link's count badge: "3" shown, "(3 pending)" read after the link's label; nothing when there is none. */
function NavBadge({ count, what }: { count: number | undefined; what: string }) {
  const badge = countBadge(count, what);
  if (!badge) return null;
  return (
    <>
      <span className="badge warn nav-count" aria-hidden="true">
        {badge.shown}
      </span>
      <span className="visually-hidden"> ({badge.read})</span>
    </>
  );
}

/**
 * The console's search box: an app by name or consumer key, a user by username, a token by
 * the start of its id. Submitting opens the results page (pages/admin/SearchPage.tsx), whose
 * text it then shows. The button is named for what it searches, apart from the pages' own "Search".
 */
function ConsoleSearch() {
  const location = useLocation();
  const navigate = useNavigate();
  const current = location.pathname === patterns.search ? readSearchText(new URLSearchParams(location.search)) : "";
  const [text, setText] = useState(current);
  useEffect(() => setText(current), [current]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void navigate(routes.search(text.trim()));
  }

  return (
    <form className="search console-search" role="search" aria-label="Apps, users and tokens" onSubmit={onSubmit}>
      <label htmlFor="console-search">
        Search<span className="visually-hidden"> apps, users and tokens</span>
      </label>
      <input id="console-search" type="search" value={text} onChange={(e) => setText(e.target.value)} maxLength={NAME_MAX_LENGTH} autoComplete="off" spellCheck={false} />
      <button type="submit" className="button secondary small">
        Search<span className="visually-hidden"> apps, users and tokens</span>
      </button>
    </form>
  );
}

/** The console's frame: brand, navigation (with the count of pending registrations), the search box, who is signed in and "Sign out", then the page. */
export function AdminLayout() {
  const { user } = useSession();
  const pending = usePendingRegistrationCount();
  return (
    <div className="console">
      <a className="skip-link" href="#console-main">
        Skip to content
      </a>
      <header className="console-header">
        <p className="brand">
          Tollgate <span className="brand-sub">console</span>
        </p>
        <nav aria-label="Console" className="console-nav">
          <ul>
            {LINKS.map((link) => (
              <li key={link.to}>
                <NavLink to={link.to} end={link.end}>
                  {link.label}
                  {link.badge && <NavBadge count={pending} what={link.badge} />}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <ConsoleSearch />
        <div className="whoami">
          <span className="muted small">
            Signed in as <strong>{user.username}</strong> ({user.role})
          </span>
          <SignOutButton className="button secondary small" />
        </div>
      </header>
      <main id="console-main" className="console-main" tabIndex={-1}>
        <Suspense
          fallback={
            <p role="status" className="muted">
              Loading…
            </p>
          }
        >
          <Outlet />
        </Suspense>
      </main>
    </div>
  );
}
