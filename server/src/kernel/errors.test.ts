/**
 * Every error description written in the source is printable ASCII. OAuthError replaces
 * any character outside RFC 6749 §5.2's set with `?` (a "§" came out as "RFC 6749 ?3.3"),
 * which is right for echoed input but means a non-ASCII character in a fixed text is a
 * bug. The source is parsed with the TypeScript compiler: the text parts of every argument
 * of `new <OAuthError or a subclass>(...)` anywhere under server/src, and of the
 * authorization endpoint's error redirects (`fail`, `errorRedirect`), are checked.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AuthorizationErrorRedirect,
  BearerError,
  InvalidAuthorizationRequest,
  InvalidClient,
  InvalidGrant,
  InvalidRequest,
  InvalidScope,
  MethodNotAllowed,
  UnknownPath,
  OAuthError,
  UnauthorizedClient,
  UnsupportedGrantType,
} from "./errors.js";

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Calls whose arguments become an `error_description` on an authorization error redirect (oauth/authorize.ts). */
const REDIRECT_CALLS = new Set(["fail", "errorRedirect"]);

/** Parsed source files of server/src, without tests and generated code. */
function sources(): ts.SourceFile[] {
  return readdirSync(SRC, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && f.split(path.sep)[0] !== "generated")
    .map((f) => ts.createSourceFile(f, readFileSync(path.join(SRC, f), "utf8"), ts.ScriptTarget.Latest, true));
}

function visit(node: ts.Node, f: (n: ts.Node) => void): void {
  f(node);
  node.forEachChild((child) => visit(child, f));
}

/** Names of OAuthError and every class that extends it, directly or not. */
function errorClasses(files: ts.SourceFile[]): Set<string> {
  const parents = new Map<string, string>();
  for (const file of files) {
    visit(file, (n) => {
      const base = ts.isClassDeclaration(n) && n.name ? n.heritageClauses?.[0]?.types[0]?.expression : undefined;
      if (base && ts.isIdentifier(base)) parents.set((n as ts.ClassDeclaration).name!.text, base.text);
    });
  }
  const classes = new Set(["OAuthError"]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, parent] of parents) {
      if (classes.has(parent) && !classes.has(name)) {
        classes.add(name);
        grew = true;
      }
    }
  }
  return classes;
}

/** The literal text parts (strings, template parts) inside `node`, with where they are. */
function literalTexts(node: ts.Node, file: ts.SourceFile): { text: string; at: string }[] {
  const found: { text: string; at: string }[] = [];
  visit(node, (n) => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) {
      found.push({ text: n.text, at: `${file.fileName}:${file.getLineAndCharacterOfPosition(n.getStart()).line + 1}` });
    }
  });
  return found;
}

describe("error descriptions in the source", () => {
  it("are printable ASCII, so none reaches a client with a '?' in place of a character", () => {
    const files = sources();
    const classes = errorClasses(files);
    const texts: { text: string; at: string }[] = [];
    for (const file of files) {
      visit(file, (n) => {
        const callee = ts.isNewExpression(n) || ts.isCallExpression(n) ? n.expression : undefined;
        if (!callee || !ts.isIdentifier(callee)) return;
        const described = ts.isNewExpression(n) ? classes.has(callee.text) : REDIRECT_CALLS.has(callee.text);
        if (described) for (const arg of (n as ts.NewExpression | ts.CallExpression).arguments ?? []) texts.push(...literalTexts(arg, file));
      });
    }
    // The scan sees the error classes and their uses throughout the server.
    expect([...classes]).toEqual(expect.arrayContaining(["InvalidRequest", "InvalidClient", "InvalidScope", "BearerError", "InvalidAuthorizationRequest"]));
    expect(texts.length).toBeGreaterThan(100);
    expect(texts.filter((t) => !/^[\x20-\x7e]*$/.test(t.text))).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------
// The error classes themselves: what a caller gets in the body and the headers.
// ---------------------------------------------------------------------------------------

/** RFC 6749 §5.2 / RFC 6750 §3: error_description = 1*( %x20-21 / %x23-5B / %x5D-7E ). */
const DESCRIPTION_CHARS = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

describe("OAuthError description sanitizer (RFC 6749 §5.2 error_description character set)", () => {
  it.each([
    ["keeps printable ASCII other than quote and backslash", "bad value !#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}~", "bad value !#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}~"],
    ['turns %x22 (") into \'', 'scope "admin" is unknown', "scope 'admin' is unknown"],
    ["turns %x5C (\\) into /", "path a\\b", "path a/b"],
    ["turns LF and CR (header injection) into ?", "x\r\nSet-Cookie: a=1", "x??Set-Cookie: a=1"],
    ["turns TAB into ?", "a\tb", "a?b"],
    ["turns DEL %x7F into ?", "a\x7fb", "a?b"],
    ["turns NUL into ?", "a\0b", "a?b"],
    ["turns a non-ASCII letter into ?", "caf\u00e9", "caf?"],
    ["turns a lone surrogate into ?", "a\ud800b", "a?b"],
  ])("%s", (_what, description, expected) => {
    const err = new OAuthError("invalid_request", description);
    expect(err.message).toBe(expected);
    expect(err.toJSON().error_description).toBe(expected);
    expect(expected).toMatch(DESCRIPTION_CHARS);
  });

  it("cuts an echoed description to 200 characters, before replacing characters", () => {
    expect(new OAuthError("invalid_request", "x".repeat(250)).message).toBe("x".repeat(200));
    expect(new OAuthError("invalid_request", '"'.repeat(250)).message).toBe("'".repeat(200));
    expect(new OAuthError("invalid_request", "y".repeat(200)).message).toBe("y".repeat(200));
  });

  it("never lets a character outside the §5.2 set through, whatever the input (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (s) => {
        expect(new OAuthError("invalid_request", s).message).toMatch(DESCRIPTION_CHARS);
      }),
    );
  });
});

describe("OAuthError.toJSON and fields (RFC 6749 §5.2 error response)", () => {
  it("serializes to exactly error and error_description: no status, headers or stack", () => {
    const err = new InvalidGrant("the authorization code has expired");
    expect(err.toJSON()).toEqual({ error: "invalid_grant", error_description: "the authorization code has expired" });
    expect(JSON.parse(JSON.stringify(err))).toEqual({ error: "invalid_grant", error_description: "the authorization code has expired" });
  });

  it("defaults to status 400 and no extra headers, and is named after its class", () => {
    const err = new OAuthError("invalid_request", "x");
    expect(err.status).toBe(400);
    expect(err.headers).toEqual({});
    expect(new InvalidScope("x").name).toBe("InvalidScope");
  });

  it.each([
    ["InvalidRequest", () => new InvalidRequest("d"), "invalid_request", 400],
    ["InvalidGrant", () => new InvalidGrant("d"), "invalid_grant", 400],
    ["UnauthorizedClient", () => new UnauthorizedClient("d"), "unauthorized_client", 400],
    ["UnsupportedGrantType", () => new UnsupportedGrantType("d"), "unsupported_grant_type", 400],
    ["InvalidScope", () => new InvalidScope("d"), "invalid_scope", 400],
    ["UnknownPath", () => new UnknownPath("d"), "not_found", 404],
    ["InvalidAuthorizationRequest", () => new InvalidAuthorizationRequest("unauthorized_client", "d"), "unauthorized_client", 400],
  ] as const)("%s carries the §5.2 code %s and status %i, without a challenge", (_name, make, code, status) => {
    const err = make();
    expect(err).toBeInstanceOf(OAuthError);
    expect(err.error).toBe(code);
    expect(err.status).toBe(status);
    expect(err.headers).toEqual({});
  });

  it("InvalidRequest takes another status (e.g. 413 for a body too large)", () => {
    expect(new InvalidRequest("too large", 413).status).toBe(413);
  });
});

describe("InvalidClient (RFC 6749 §5.2 invalid_client, RFC 7617 §2 Basic challenge)", () => {
  it("answers 401 with a Basic challenge naming the realm and charset UTF-8 (RFC 7617 §2.1)", () => {
    const err = new InvalidClient("invalid consumer key or secret", "tollgate");
    expect(err.status).toBe(401);
    expect(err.error).toBe("invalid_client");
    expect(err.headers).toEqual({ "WWW-Authenticate": 'Basic realm="tollgate", charset="UTF-8"' });
    expect(err.toJSON()).toEqual({ error: "invalid_client", error_description: "invalid consumer key or secret" });
  });
});

describe("MethodNotAllowed (RFC 9110 §15.5.6: 405 with Allow)", () => {
  it.each([
    [["POST"], "POST"],
    [["GET", "POST"], "GET, POST"],
  ])("lists %j in Allow", (allow, header) => {
    const err = new MethodNotAllowed(allow);
    expect(err.status).toBe(405);
    expect(err.error).toBe("invalid_request");
    expect(err.headers).toEqual({ Allow: header });
  });
});

describe("BearerError (RFC 6750 §3 WWW-Authenticate: Bearer)", () => {
  it("§3.1: a request without a token gets only the realm, no error code or description", () => {
    const err = new BearerError("tollgate", 401, undefined, "a Bearer access token is required");
    expect(err.status).toBe(401);
    expect(err.headers).toEqual({ "WWW-Authenticate": 'Bearer realm="tollgate"' });
  });

  it("§3.1 invalid_token: 401 with error and error_description in the challenge", () => {
    const err = new BearerError("tollgate", 401, "invalid_token", "the access token expired");
    expect(err.status).toBe(401);
    expect(err.error).toBe("invalid_token");
    expect(err.headers["WWW-Authenticate"]).toBe('Bearer realm="tollgate", error="invalid_token", error_description="the access token expired"');
  });

  it("§3.1 insufficient_scope: 403 with the required scope as a space-delimited scope attribute", () => {
    const err = new BearerError("tollgate", 403, "insufficient_scope", "scope missing", "aisp pisp");
    expect(err.status).toBe(403);
    expect(err.error).toBe("insufficient_scope");
    expect(err.headers["WWW-Authenticate"]).toBe('Bearer realm="tollgate", error="insufficient_scope", error_description="scope missing", scope="aisp pisp"');
  });

  it("leaves out an empty scope attribute", () => {
    expect(new BearerError("r", 403, "insufficient_scope", "d", "").headers["WWW-Authenticate"]).toBe('Bearer realm="r", error="insufficient_scope", error_description="d"');
  });

  it('§3: no " or \\ survives inside a quoted auth-param, so the challenge cannot gain parameters', () => {
    const err = new BearerError('to"ll\\gate', 403, "insufficient_scope", 'the API "x\\y" needs more', 'a"b');
    expect(err.headers["WWW-Authenticate"]).toBe(`Bearer realm="to'll/gate", error="insufficient_scope", error_description="the API 'x/y' needs more", scope="a'b"`);
    // The JSON body and the challenge carry the same description.
    expect(err.toJSON().error_description).toBe("the API 'x/y' needs more");
  });

  it("§3: CR, LF and characters outside %x20-21 / %x23-5B / %x5D-7E never reach the challenge", () => {
    const err = new BearerError("tollgate", 401, "invalid_token", "bad\r\nSet-Cookie: x=1 é 😀");
    expect(err.headers["WWW-Authenticate"]).toBe('Bearer realm="tollgate", error="invalid_token", error_description="bad??Set-Cookie: x=1 ? ?"');
  });

  it("RFC 9470 §3: insufficient_user_authentication with acr_values quoted and max_age quoted (RFC 9470 §3's example), before a DPoP challenge's algs", () => {
    const err = new BearerError("tollgate", 401, "insufficient_user_authentication", "stronger", undefined, { algs: ["ES256"] }, { acrValues: "urn:tollgate:sca", maxAge: 30 });
    expect(err.status).toBe(401);
    expect(err.error).toBe("insufficient_user_authentication");
    expect(err.headers["WWW-Authenticate"]).toBe('DPoP realm="tollgate", error="insufficient_user_authentication", error_description="stronger", acr_values="urn:tollgate:sca", max_age="30", algs="ES256"');
  });

  it("RFC 9470 §3: leaves out an empty acr_values, and a max_age that is not a non-negative integer ", () => {
    for (const maxAge of [Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY]) {
      const err = new BearerError("r", 401, "insufficient_user_authentication", "d", undefined, undefined, { acrValues: "", maxAge });
      expect(err.headers["WWW-Authenticate"]).toBe('Bearer realm="r", error="insufficient_user_authentication", error_description="d"');
    }
    expect(new BearerError("r", 401, "insufficient_user_authentication", "d", undefined, undefined, { maxAge: 0 }).headers["WWW-Authenticate"]).toMatch(/, max_age="0"$/);
  });

  it("§3: the description is cut to 200 characters, also when each is a surrogate pair", () => {
    const err = new BearerError("tollgate", 401, "invalid_token", "😀".repeat(300));
    expect(err.message).toBe("?".repeat(200));
    expect(err.headers["WWW-Authenticate"]).toContain(`error_description="${"?".repeat(200)}"`);
  });
});

describe("BearerError.withDpopOffered (RFC 9449 §7.1, §7.2: a resource taking Bearer and DPoP)", () => {
  const dpop = { algs: ["PS256", "ES256"] };

  it("adds the DPoP challenge with algs beside a 401's Bearer challenge, with or without an error", () => {
    expect(new BearerError("tollgate", 401, undefined, "no token").withDpopOffered(dpop).headers["WWW-Authenticate"]).toBe('Bearer realm="tollgate", DPoP realm="tollgate", algs="PS256 ES256"');
    expect(new BearerError("tollgate", 401, "invalid_token", "expired").withDpopOffered(dpop).headers["WWW-Authenticate"]).toBe(
      'Bearer realm="tollgate", error="invalid_token", error_description="expired", DPoP realm="tollgate", algs="PS256 ES256"',
    );
  });

  it("leaves a DPoP challenge and a 403 as they are", () => {
    expect(new BearerError("r", 401, "invalid_dpop_proof", "d", undefined, dpop).withDpopOffered(dpop).headers["WWW-Authenticate"]).toBe('DPoP realm="r", error="invalid_dpop_proof", error_description="d", algs="PS256 ES256"');
    expect(new BearerError("r", 403, "insufficient_scope", "d").withDpopOffered(dpop).headers["WWW-Authenticate"]).toBe('Bearer realm="r", error="insufficient_scope", error_description="d"');
  });
});

describe("AuthorizationErrorRedirect (RFC 6749 §4.1.2.1)", () => {
  it("carries the redirect location and is not an OAuthError (so it is never rendered as a JSON error)", () => {
    const err = new AuthorizationErrorRedirect({ redirectTo: "https://client.example/cb?error=access_denied&state=xyz" });
    expect(err.redirect).toEqual({ redirectTo: "https://client.example/cb?error=access_denied&state=xyz" });
    expect(err).not.toBeInstanceOf(OAuthError);
  });
});
