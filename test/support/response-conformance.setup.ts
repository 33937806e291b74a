import { describeMismatches, takeMismatches } from './response-conformance';

// Registered for every end-to-end spec file (jest.config.js): the file fails when any response
// it received broke the OpenAPI description its application serves.
afterAll(() => {
  const mismatches = takeMismatches();
  if (mismatches.length > 0) {
    throw new Error(
      `${mismatches.length} response(s) do not match the served OpenAPI description:\n` +
        describeMismatches(mismatches),
    );
  }
});
