import { Suspense } from "react";
import { NavLink, Outlet } from "react-router";
import { routes } from "../lib/routes";
import { useSession } from "../lib/session";
import { SignOutButton } from "./SignOutButton";

const LINKS = [
  { to: routes.dashboard(), label: "Dashboard", end: true },
  { to: routes.organizations(), label: "Organizations" },
  { to: routes.apps(), label: "Apps" },
  { to: routes.products(), label: "API products" },
  { to: routes.users(), label: "Users" },
  { to: routes.psd2Consents(), label: "PSD2 consents" },
  { to: routes.audit(), label: "Audit log" },
];

/** The console's frame: brand, navigation, who is signed in and "Sign out", then the page. */
export function AdminLayout() {
  const { user } = useSession();
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
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="whoami">
          <span className="muted small">
            Signed in as <strong>{user.username}</strong>
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
