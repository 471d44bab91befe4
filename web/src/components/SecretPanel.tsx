import { useEffect, useRef, useState, type ReactNode } from "react";
import type { IssuedCredential } from "../api/admin";

const capitalised = (text: string) => `${text[0]!.toUpperCase()}${text.slice(1)}`;

/** "Copy" for one value; says "Copied" (or how to copy by hand) in a live region next to it. */
export function CopyButton({ value, what }: { value: string; what: string }) {
  const [result, setResult] = useState<"" | "copied" | "failed">("");
  useEffect(() => {
    if (result !== "copied") return undefined;
    const timer = window.setTimeout(() => setResult(""), 4000);
    return () => window.clearTimeout(timer);
  }, [result]);

  async function copy() {
    try {
      // navigator.clipboard exists only in secure contexts (https, localhost).
      if (!navigator.clipboard) throw new Error("no clipboard");
      await navigator.clipboard.writeText(value);
      setResult("copied");
    } catch {
      setResult("failed");
    }
  }

  return (
    <span className="copy">
      <button type="button" className="button secondary small" onClick={() => void copy()}>
        Copy<span className="visually-hidden"> {what}</span>
      </button>
      <span role="status" className={result === "failed" ? "copy-status failed" : "copy-status"}>
        {result === "copied" ? `${capitalised(what)} copied` : result === "failed" ? "Copying failed: select the value and copy it by hand." : ""}
      </span>
    </span>
  );
}

/** Values shown once, each named, with "Copy"; each `<code>` has the test id of its name with dashes ("consumer-secret"). */
export function SecretValues({ values }: { values: ReadonlyArray<{ what: string; value: string }> }) {
  return (
    <dl className="secret-values">
      {values.map(({ what, value }) => (
        <div key={what}>
          <dt>{capitalised(what)}</dt>
          <dd>
            <code data-testid={what.replaceAll(" ", "-")}>{value}</code>
            <CopyButton value={value} what={what} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The consumer key and secret of a new credential (created app, rotation), shown once: the
 * server keeps only a hash of the secret. Takes focus when it appears.
 */
export function SecretPanel({
  issued,
  title,
  onDone,
  children,
}: {
  issued: IssuedCredential;
  title: string;
  onDone: () => void;
  /** More actions next to "I have copied the secret" (e.g. a link to the app). */
  children?: ReactNode;
}) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    headingRef.current?.focus();
  }, [issued]);
  return (
    <section className="secret-panel" aria-labelledby="secret-panel-title">
      <h2 id="secret-panel-title" ref={headingRef} tabIndex={-1}>
        {title}
      </h2>
      <p className="secret-warning">
        <strong>Copy the consumer secret now: it won't be shown again.</strong> Tollgate keeps only a hash of it. If it is lost,
        rotate the credential to get a new one.
      </p>
      <SecretValues
        values={[
          { what: "consumer key", value: issued.consumerKey },
          { what: "consumer secret", value: issued.consumerSecret },
        ]}
      />
      <div className="actions">
        <button type="button" className="button primary" onClick={onDone}>
          I have copied the secret
        </button>
        {children}
      </div>
    </section>
  );
}
