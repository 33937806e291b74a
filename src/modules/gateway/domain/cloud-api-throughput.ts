/**
 * Messages a second a Cloud API number sends when its configuration names none: Meta's
 * throughput for a business phone number (developers.facebook.com/documentation/
 * business-messaging/whatsapp/throughput), which a number upgraded by Meta raises to 1,000.
 */
export const DEFAULT_CLOUD_THROUGHPUT_PER_SECOND = 80;
