import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { groupKey, normalizeCode, TOTP_CODE_LENGTH, type TotpEnrolment } from "../../api/factors";
import { OneTimeCodeField } from "../../components/Field";
import { CopyButton } from "../../components/SecretPanel";
import { brand } from "../../lib/brand";
import { FactorFormEnd } from "./FactorFormEnd";
import { ErrorAlert } from "../../components/Notices";

/**
 * "Set up an authenticator app": the new key as a QR code and as text to type in (in groups
 * of four, copyable), then a code from the app and a name to confirm it. The heading takes
 * focus when it appears; the code field after a failure.
 *
 * @param error - why the last confirmation failed (e.g. a wrong code), shown on the form; a
 *   new object for each failure.
 * @param onConfirm - confirms the key with a code (six digits) and a name.
 */
export function TotpSetup({
  enrolment,
  busy,
  error,
  onConfirm,
  onCancel,
}: {
  enrolment: TotpEnrolment;
  busy: boolean;
  error: { message: string } | null;
  onConfirm: (code: string, name: string) => void;
  onCancel: () => void;
}) {
  const titleId = useId();
  const errorId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const codeRef = useRef<HTMLInputElement>(null);
  const [code, setCode] = useState("");
  const [name, setName] = useState("");
  const [malformed, setMalformed] = useState(false);

  useEffect(() => {
    headingRef.current?.focus();
  }, [enrolment]);

  useEffect(() => {
    if (error) {
      setCode("");
      codeRef.current?.focus();
    }
  }, [error]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const normalized = normalizeCode(code);
    setMalformed(normalized === null);
    if (normalized === null) {
      codeRef.current?.focus();
      return;
    }
    onConfirm(normalized, name.trim());
  }

  const message = malformed ? `Enter the ${TOTP_CODE_LENGTH} digits the app shows.` : (error?.message ?? null);
  return (
    <section className="step-panel" aria-labelledby={titleId}>
      <h3 id={titleId} ref={headingRef} tabIndex={-1}>
        Set up an authenticator app
      </h3>
      <ol className="setup-steps">
        <li>
          <p>Scan this QR code with an authenticator app on your phone (for example Google Authenticator, Microsoft Authenticator or 1Password).</p>
          <img className="qr-code" src={enrolment.qrCode} width={180} height={180} alt="QR code of the key for your authenticator app (the same key is written out below)" />
          <p className="small">
            Can't scan it? Type in this key instead:
          </p>
          <p className="setup-key">
            <code data-testid="totp-key">{groupKey(enrolment.secret)}</code>
            <CopyButton value={enrolment.secret} what="key" />
          </p>
          <p className="small">
            <a href={enrolment.otpauthUri}>Open in an authenticator app on this device</a>
          </p>
        </li>
        <li>
          <p>Enter the code the app shows for {brand.name}, and give the app a name.</p>
          <form className="form-stack" onSubmit={onSubmit} aria-labelledby={titleId}>
            <ErrorAlert id={errorId} message={message} />
            <OneTimeCodeField
              ref={codeRef}
              label="Code from the app"
              hint={`${TOTP_CODE_LENGTH} digits; a new code appears every 30 seconds.`}
              digits={TOTP_CODE_LENGTH}
              value={code}
              onChange={setCode}
              invalid={Boolean(message)}
              describedBy={message ? errorId : undefined}
            />
            <FactorFormEnd kind="totp" name={name} onName={setName} busy={busy} onCancel={onCancel} />
          </form>
        </li>
      </ol>
    </section>
  );
}
