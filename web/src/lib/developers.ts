/** Developers as the console names them. */

/** What the helpers read of a developer. */
interface DeveloperNames {
  email: string;
  firstName: string;
  lastName: string;
}

/** "Dana Developer"; "" when neither name is known. */
export function developerName(developer: DeveloperNames): string {
  return `${developer.firstName} ${developer.lastName}`.trim();
}

/** A developer to choose as an app's owner: "dana@acme.example (Dana Developer) · Acme Fintech Ltd". */
export function developerOptionLabel(developer: DeveloperNames & { organization: { name: string } }): string {
  const name = developerName(developer);
  return `${developer.email}${name ? ` (${name})` : ""} · ${developer.organization.name}`;
}
