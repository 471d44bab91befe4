/**
 * DEMO ONLY. `npm run demo:totp`: prints the demo user's current one-time code (RFC 6238,
 * from her public demo key in server/src/demo/seed.ts), as her authenticator app would show
 * it, and how many seconds it stays current; `npm run demo:totp -- admin`: the demo
 * administrator's. The server accepts each code once, within one 30-s step either side.
 */
import { generate } from "otplib";
import { DEMO } from "../server/src/demo/seed.js";

const STEP_SECONDS = 30;
const who = process.argv[2] === "admin" ? DEMO.admin : DEMO.user;
const code = await generate({ secret: who.totpSecret });
const left = STEP_SECONDS - (Math.floor(Date.now() / 1000) % STEP_SECONDS);
console.log(`${code}   (${who.username}'s code, current for ${left} more s)`);
