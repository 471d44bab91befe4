import { useSearchParams } from "react-router";
import { Heading, Page } from "../components/Page";
import { sentence } from "../lib/text";

/** Query values are shown as text, but anyone can craft this URL: keep them short. */
const MAX_LENGTH = 300;
const clip = (value: string) => (value.length > MAX_LENGTH ? `${value.slice(0, MAX_LENGTH)}…` : value);

/** /error?error=…&error_description=… */
export function ErrorPage() {
  const [params] = useSearchParams();
  const error = params.get("error")?.trim();
  const description = params.get("error_description")?.trim();
  return (
    <Page title="Error">
      <Heading focus>Something went wrong</Heading>
      <p>{description ? sentence(clip(description)) : "The request could not be completed."}</p>
      {error && (
        <p className="muted">
          Error code: <code>{clip(error)}</code>
        </p>
      )}
      <p className="muted small">You can close this page and go back to the app you came from.</p>
    </Page>
  );
}
