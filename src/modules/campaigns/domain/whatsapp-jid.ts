/**
 * The JIDs WhatsApp may know a phone by. A Brazilian mobile may be registered with or without
 * its ninth digit, and the gateway sends to whichever form WhatsApp confirms, so a sent
 * message can be stored under either.
 */
export function candidateJids(phoneNumber: string): string[] {
  const digits = phoneNumber.replace(/\D/g, '');
  const forms = [digits];
  if (/^55\d{2}9\d{8}$/.test(digits)) {
    forms.push(`${digits.slice(0, 4)}${digits.slice(5)}`);
  } else if (/^55\d{2}[6-9]\d{7}$/.test(digits)) {
    forms.push(`${digits.slice(0, 4)}9${digits.slice(4)}`);
  }
  return forms.map((form) => `${form}@s.whatsapp.net`);
}
