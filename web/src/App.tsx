import { lazy } from "react";
import { BrowserRouter, Link, Route, Routes } from "react-router";
import { AdminLayout } from "./components/AdminLayout";
import { AdminPage } from "./components/AdminPage";
import { RequireSession } from "./components/RequireSession";
import { AccountPage } from "./pages/account/AccountPage";
import { AppDetailPage } from "./pages/admin/AppDetailPage";
import { AppsPage } from "./pages/admin/AppsPage";
import { OrganizationsPage } from "./pages/admin/OrganizationsPage";
import { ProductsPage } from "./pages/admin/ProductsPage";
import { UsersPage } from "./pages/admin/UsersPage";
import { ConsentPage } from "./pages/ConsentPage";
import { ErrorPage } from "./pages/ErrorPage";
import { HomePage } from "./pages/HomePage";
import { LoginPage } from "./pages/LoginPage";
import { NotFoundPage } from "./pages/NotFoundPage";

// The charts library is only loaded on the dashboard (AdminLayout shows a loading state meanwhile).
const DashboardPage = lazy(() => import("./pages/admin/DashboardPage").then((m) => ({ default: m.DashboardPage })));

/** The SPA's routes (the server serves index.html for /, /login, /consent, /error, /account, /admin and below). */
export function App() {
  return (
    <BrowserRouter>
      <Routes>
        <Route path="/" element={<HomePage />} />
        <Route path="/login" element={<LoginPage />} />
        <Route path="/consent" element={<ConsentPage />} />
        <Route path="/error" element={<ErrorPage />} />
        <Route path="/account" element={<AccountPage />} />
        <Route
          path="/admin"
          element={
            <RequireSession role="admin" home="/admin">
              <AdminLayout />
            </RequireSession>
          }
        >
          <Route index element={<DashboardPage />} />
          <Route path="organizations" element={<OrganizationsPage />} />
          <Route path="apps" element={<AppsPage />} />
          <Route path="apps/:id" element={<AppDetailPage />} />
          <Route path="products" element={<ProductsPage />} />
          <Route path="users" element={<UsersPage />} />
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
        <Link to="/admin">Go to the dashboard</Link>
      </p>
    </AdminPage>
  );
}
