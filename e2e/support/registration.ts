/**
 * A TPP's dynamic client registration (RFC 7591 §3.1) as the journeys make it: a software of its
 * own (an organization registers each software once) and a statement the demo directory signed
 * (trusted with the demo seed).
 */
import { signDemoSoftwareStatement } from "../../server/src/demo/directory.js";
import { uniqueSuffix } from "./console.js";
import { TOLLGATE_URL } from "./env.js";
import type { Json } from "./journey.js";

const REGISTRATION_ENDPOINT = "/oauth2/v1/register";

/** A TPP's software: its id, client name and version, which no other journey uses. */
export interface Software {
  softwareId: string;
  clientName: string;
  softwareVersion: string;
}

/** A software of its own: a software id and client name no other journey uses. */
export function newSoftware(): Software {
  const suffix = uniqueSuffix();
  return { softwareId: `e2e-tpp-${suffix}`, clientName: `E2E TPP ${suffix}`, softwareVersion: "2.1.0" };
}

/**
 * POSTs a registration request for `software` with a statement the demo directory signed: the
 * demo TPP's roles, organization and public key (the FAPI demo app's), private_key_jwt (the
 * bank's fapi2 profile) and the client credentials grant.
 */
export async function register(software: Software): Promise<{ status: number; body: Json }> {
  const statement = await signDemoSoftwareStatement({
    claims: { software_id: software.softwareId, software_client_name: software.clientName, software_version: software.softwareVersion },
  });
  const res = await fetch(`${TOLLGATE_URL}${REGISTRATION_ENDPOINT}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ software_statement: statement, token_endpoint_auth_method: "private_key_jwt", grant_types: ["client_credentials"] }),
  });
  return { status: res.status, body: await res.json() };
}
