/** The form_post.jwt page (JARM §2.3.3); the flows that send it on a real server: server/test/jarm.test.ts. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { formPostPage } from "./form-post.js";

describe("formPostPage", () => {
  it("posts response to the action, and its policy runs exactly its one script", () => {
    const { body, headers } = formPostPage({ action: "https://tpp.example/cb", response: "h.p.s" });
    expect(body).toContain('<form method="post" action="https://tpp.example/cb"><input type="hidden" name="response" value="h.p.s">');
    const script = /<script>([^<]*)<\/script>/.exec(body)![1]!;
    expect(headers["Content-Security-Policy"]).toContain(`script-src 'sha256-${createHash("sha256").update(script).digest("base64")}'`);
    expect(headers["Content-Security-Policy"]).toMatch(/^default-src 'none';/);
    expect(headers["Content-Length"]).toBe(String(Buffer.byteLength(body)));
  });

  it("escapes what it writes: a redirect URI with & and a quote stays one attribute", () => {
    const { body } = formPostPage({ action: 'https://tpp.example/cb?a=1&b="x"', response: "h.p.s" });
    expect(body).toContain('action="https://tpp.example/cb?a=1&amp;b=&quot;x&quot;"');
  });
});
