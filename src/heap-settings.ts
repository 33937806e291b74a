import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived its last full collection before
 * collecting it again, in percent. Left to itself it lets it grow to three or four times that,
 * about 100 MB more for this service: an export of 100,000 contacts promotes some 50 MB of rows
 * that are garbage a moment later, and they stayed resident until then (docs/PERFORMANCE.md).
 */
const OLD_GENERATION_GROWTH_PERCENT = 30;

setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
