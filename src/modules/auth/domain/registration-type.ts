export const REGISTRATION_TYPES = ['admin_password', 'subscription'] as const;
export type RegistrationType = (typeof REGISTRATION_TYPES)[number];

/** Subscription statuses that grant access to a subscription-registered company. */
const ACCESS_GRANTING_SUBSCRIPTION_STATUSES: readonly string[] = ['active', 'authorized'];

/** Admin-registered companies have unrestricted access; others need a live subscription. */
export function grantsServiceAccess(
  registrationType: string,
  subscriptionStatus: string | null,
): boolean {
  return (
    registrationType === 'admin_password' ||
    ACCESS_GRANTING_SUBSCRIPTION_STATUSES.includes((subscriptionStatus ?? '').toLowerCase())
  );
}
