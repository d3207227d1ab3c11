// How a schema words its own refusal: the error map every schema of the contract that says more
// than zod's default passes (`contractErrorMap` in validation-issues.ts words the rest).

/**
 * An error map for one schema: "is required" when the value is absent, else `message`. It also
 * words the issues of the schema's checks (`.max()`, `.min()`) unless they carry their own.
 *
 * @example z.string({ error: requiredOr('must be a string') })
 */
export function requiredOr(message: string): (issue: { readonly input?: unknown }) => string {
  return (issue) => (issue.input === undefined ? 'is required' : message);
}
