/**
 * Sending the browser on with an authorization response: a redirect, or the page that
 * delivers a `form_post.jwt` answer (JARM §2.3.3; OAuth 2.0 Form Post Response Mode §2), a
 * form holding the signed `response`, posted to the client's redirect URI by the browser at
 * once. Its one script is allowed by its hash alone, and a browser without scripts gets a
 * Continue button.
 */
import { createHash } from "node:crypto";
import type { ServerResponse } from "node:http";
import { escapeHtml } from "../kernel/text.js";
import type { AuthorizationRedirect, FormPost } from "./authorization-response.js";

/** The page's only script: it submits the form. */
const SUBMIT = "document.forms[0].submit();";

/**
 * The page's policy: nothing loads, only {@link SUBMIT} runs, no framing. No `form-action`:
 * browsers apply it to the redirects that follow the post too, which are the client's own.
 */
const POLICY = `default-src 'none'; script-src 'sha256-${createHash("sha256").update(SUBMIT).digest("base64")}'; frame-ancestors 'none'; base-uri 'none'`;

/**
 * The HTML page that posts `post.response` to `post.action`, and its headers (Form Post
 * Response Mode §2: not cached; CSP as {@link POLICY}).
 * @returns the page's body and headers, for a 200 answer.
 */
export function formPostPage(post: FormPost): { body: string; headers: Record<string, string> } {
  const body =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Returning to the application</title></head>` +
    `<body><main><form method="post" action="${escapeHtml(post.action)}">` +
    `<input type="hidden" name="response" value="${escapeHtml(post.response)}">` +
    `<p>Returning to the application…</p><noscript><button type="submit">Continue</button></noscript>` +
    `</form></main><script>${SUBMIT}</script></body></html>`;
  return {
    body,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": String(Buffer.byteLength(body)),
      "Cache-Control": "no-cache, no-store",
      Pragma: "no-cache",
      "Content-Security-Policy": POLICY,
      "X-Frame-Options": "DENY",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
    },
  };
}

/** Answers `res` with `redirect`: a 302 to the redirect URI, or the page that posts a `form_post.jwt` answer. */
export function sendAuthorizationRedirect(res: ServerResponse, redirect: AuthorizationRedirect): void {
  if (redirect.formPost) {
    const page = formPostPage(redirect.formPost);
    res.writeHead(200, page.headers).end(page.body);
    return;
  }
  res.writeHead(302, { "Cache-Control": "no-store", Location: redirect.redirectTo }).end();
}
