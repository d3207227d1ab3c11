// The two `Authorization` forms of the contract (docs/identity-and-consent.md#api-keys): the bare key and `Bearer <key>`.

export type AuthorizationForm = 'bare' | 'bearer';

export const AUTHORIZATION_FORMS: readonly AuthorizationForm[] = ['bare', 'bearer'];

/** The header value of `key` in `form`. */
export function authorizationHeader(form: AuthorizationForm, key: string): string {
  return form === 'bare' ? key : `Bearer ${key}`;
}
