import { lazy } from "react";
import { BrowserRouter, Link, Route, Routes } from "react-router";
import { AdminLayout } from "./components/AdminLayout";
import { AdminPage } from "./components/AdminPage";
import { RequireSession } from "./components/RequireSession";
import { patterns, routes } from "./lib/routes";
import { AccountPage } from "./pages/account/AccountPage";
import { AppDetailPage } from "./pages/admin/AppDetailPage";
import { AppsPage } from "./pages/admin/AppsPage";
import { AuditPage } from "./pages/admin/AuditPage";
import { IdentityProvidersPage } from "./pages/admin/IdentityProvidersPage";
import { OrganizationsPage } from "./pages/admin/OrganizationsPage";
import { ProductsPage } from "./pages/admin/ProductsPage";
import { RegistrationsPage } from "./pages/admin/RegistrationsPage";
import { Psd2ConsentPage } from "./pages/admin/Psd2ConsentPage";
import { Psd2ConsentsPage } from "./pages/admin/Psd2ConsentsPage";
import { ScopeConsentPage } from "./pages/admin/ScopeConsentPage";
import { SearchPage } from "./pages/admin/SearchPage";
import { SigningKeysPage } from "./pages/admin/SigningKeysPage";
import { TokensPage } from "./pages/admin/TokensPage";
import { UsersPage } from "./pages/admin/UsersPage";
import { ConsentPage } from "./pages/ConsentPage";
import { LogoutPage } from "./pages/LogoutPage";
import { ErrorPage } from "./pages/ErrorPage";
import { HomePage } from "./pages/HomePage";
import { LoginPage } from "./pages/LoginPage";
import { NotFoundPage } from "./pages/NotFoundPage";

// The charts library is only loaded on the dashboard (AdminLayout shows a loading state meanwhile).
const DashboardPage = lazy(() => import("./pages/admin/DashboardPage").then((m) => ({ default: m.DashboardPage })));

/** The SPA's routes (lib/routes.ts; the server serves index.html for /, /login, /consent, /error, /account, /admin and below). */
export function App() {
  return (
    <BrowserRouter>
      <Routes>
        <Route path={patterns.home} element={<HomePage />} />
        <Route path={patterns.login} element={<LoginPage />} />
        <Route path={patterns.consent} element={<ConsentPage />} />
        <Route path={patterns.error} element={<ErrorPage />} />
        <Route path={patterns.logout} element={<LogoutPage />} />
        <Route path={patterns.account} element={<AccountPage />} />
        <Route
          path={patterns.console}
          element={
            <RequireSession staff home={routes.dashboard()}>
              <AdminLayout />
            </RequireSession>
          }
        >
          <Route index element={<DashboardPage />} />
          <Route path={patterns.organizations} element={<OrganizationsPage />} />
          <Route path={patterns.apps} element={<AppsPage />} />
          <Route path={patterns.appDetail} element={<AppDetailPage />} />
          <Route path={patterns.products} element={<ProductsPage />} />
          <Route path={patterns.users} element={<UsersPage />} />
          <Route path={patterns.scopeConsent} element={<ScopeConsentPage />} />
          <Route path={patterns.tokens} element={<TokensPage />} />
          <Route path={patterns.search} element={<SearchPage />} />
          <Route path={patterns.psd2Consents} element={<Psd2ConsentsPage />} />
          <Route path={patterns.psd2Consent} element={<Psd2ConsentPage />} />
          <Route path={patterns.audit} element={<AuditPage />} />
          <Route path={patterns.signingKeys} element={<SigningKeysPage />} />
          <Route path={patterns.identityProviders} element={<IdentityProvidersPage />} />
          <Route path={patterns.registrations} element={<RegistrationsPage />} />
          <Route path="*" element={<AdminNotFound />} />
        </Route>
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </BrowserRouter>
  );
}

function AdminNotFound() {
  return (
    <AdminPage title="Page not found">
      <p>There is no console page at this address.</p>
      <p>
        <Link to={routes.dashboard()}>Go to the dashboard</Link>
      </p>
    </AdminPage>
  );
}
