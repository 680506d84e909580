/**
 * A real API process with the test widget routes, for tests that kill it mid-request.
 * Reads the stack's addresses from TEST_* like the tests do; prints "listening <url>" once ready.
 */
import { startTestApi } from './stack';
import { widgetRoutes } from './widgets';

startTestApi({}, { extraRoutes: widgetRoutes }).then(
  (api) => process.stdout.write(`listening ${api.url}\n`),
  (err) => {
    process.stderr.write(`widget api could not start: ${err?.message ?? err}\n`);
    process.exit(1);
  },
);
