import { Heading, Page } from "../components/Page";

/** / */
export function HomePage() {
  return (
    <Page title="Tollgate">
      <Heading>Tollgate</Heading>
      <p>OAuth 2.0 authorization server and API gateway.</p>
    </Page>
  );
}
