import type { ReactNode } from "react";
import { useCan } from "../lib/session";

/** Renders `children` only when the signed-in role may call the admin API's `mutation` (lib/roles.ts); `otherwise` else. */
export function Can({ mutation, children, otherwise = null }: { mutation: string; children: ReactNode; otherwise?: ReactNode }) {
  return useCan()(mutation) ? children : otherwise;
}
