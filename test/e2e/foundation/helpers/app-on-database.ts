/** Kept for the files that import it from here; the one implementation is in test/support. */
export { startAppOn } from '../../../support/test-app';
