/**
 * The build's last step: loads the server's modules once with Node's compile cache on, as
 * dist/server/src/main.js does, so that the first `npm start` after a build is as fast as the
 * ones after it. It starts nothing: importing these modules has no side effect.
 */
import { enableCompileCache, flushCompileCache } from "node:module";

enableCompileCache();
await import("../dist/server/src/server.js");
await import("../dist/server/src/demo/directory.js");
await import("../dist/server/src/admin/graphql.js");
flushCompileCache();
