import { Heading, Page } from "../components/Page";
import { brand } from "../lib/brand";

/** / */
export function HomePage() {
  return (
    <Page title={brand.name}>
      <Heading>{brand.name}</Heading>
      <p>OAuth 2.0 authorization server and API gateway.</p>
    </Page>
  );
}
