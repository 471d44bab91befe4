import type { FormEvent } from "react";
import { PASSWORD_LENGTH, USERNAME_LENGTH } from "../../../../server/src/kernel/limits";
import { CREATE_USER, type Role } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { SelectField, TextField } from "../../components/Field";
import { PanelForm } from "../../components/FormLayouts";
import { useFields } from "../../lib/useFields";
import { useAction } from "../../lib/useGraphQL";

/** The roles a user can have (lib/roles.ts): support revokes tokens and consents and resets factors, an auditor only reads. */
export const ROLE_OPTIONS: ReadonlyArray<{ value: Role; label: string }> = [
  { value: "user", label: "User" },
  { value: "admin", label: "Administrator" },
  { value: "support", label: "Support (revokes tokens and consents, resets factors)" },
  { value: "auditor", label: "Auditor (reads only)" },
];

/** "Create a user" on /admin/users: username, password and role. */
export function CreateUserForm({ onCreated }: { onCreated: () => void }) {
  const action = useAction();
  const fields = useFields({ username: "", password: "", role: "user" as Role });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const { username, password, role } = fields.values;
      const { createUser } = await graphql(CREATE_USER, { input: { username: username.trim(), password, role } });
      fields.reset();
      onCreated();
      return `User ${createUser.username} created${createUser.role === "user" ? "" : ` (${createUser.role})`}.`;
    });
  }

  return (
    <PanelForm mutation="createUser" title="Create a user" action={action} submitLabel="Create user" onSubmit={onSubmit}>
      <TextField
        label="Username"
        hint={`${USERNAME_LENGTH.min} to ${USERNAME_LENGTH.max} letters, digits, . _ @ -`}
        {...fields.bind("username")}
        required
        minLength={USERNAME_LENGTH.min}
        maxLength={USERNAME_LENGTH.max}
        pattern="[A-Za-z0-9._@\-]+"
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
      />
      <TextField
        label="Password"
        hint={`At least ${PASSWORD_LENGTH.min} characters.`}
        type="password"
        {...fields.bind("password")}
        required
        minLength={PASSWORD_LENGTH.min}
        maxLength={PASSWORD_LENGTH.max}
        autoComplete="new-password"
      />
      <SelectField label="Role" {...fields.bind("role")} options={ROLE_OPTIONS} />
    </PanelForm>
  );
}
