/**
 * API products as the console's forms offer them to a credential: their names in words, and
 * the admin API product kept apart from the others (its tokens administer Tollgate).
 */
import { ADMIN_SCOPE } from "../../../server/src/oauth/scopes";

/** What the helpers read of a product. */
interface ProductNames {
  name: string;
  displayName: string;
}

/**
 * Whether a product's tokens may administer Tollgate: it grants the admin scope, which makes
 * a bearer token an admin API credential (server/src/oauth/scopes.ts ADMIN_SCOPE).
 */
export function isAdminProduct(product: { scopes: readonly string[] }): boolean {
  return product.scopes.includes(ADMIN_SCOPE);
}

/** A product as forms name it: "PSD2 Account Information (PSD2-AISP-v1)", or the name alone when the display name adds nothing. */
export function productLabel(product: ProductNames): string {
  return product.displayName && product.displayName !== product.name ? `${product.displayName} (${product.name})` : product.name;
}

/** The products split into the admin API products and the others, each in the given order. */
export function partitionAdminProducts<P extends { scopes: readonly string[] }>(products: readonly P[]): { regular: P[]; admin: P[] } {
  return { regular: products.filter((p) => !isAdminProduct(p)), admin: products.filter(isAdminProduct) };
}

/** The products a credential does not have yet (in any status), in the given order. */
export function productsNotOn<P extends { id: string }>(products: readonly P[], credential: { products: ReadonlyArray<{ product: { id: string } }> }): P[] {
  const present = new Set(credential.products.map((item) => item.product.id));
  return products.filter((p) => !present.has(p.id));
}
