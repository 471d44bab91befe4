import { Link } from "react-router";
import { Heading, Page } from "../components/Page";
import { brand } from "../lib/brand";
import { routes } from "../lib/routes";

/** Any other path served to the SPA. */
export function NotFoundPage() {
  return (
    <Page title="Page not found">
      <Heading focus>Page not found</Heading>
      <p>There is nothing at this address.</p>
      <p>
        <Link to={routes.home()}>Go to the {brand.name} home page</Link>
      </p>
    </Page>
  );
}
