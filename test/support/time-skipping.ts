import { TestWorkflowEnvironment } from '@temporalio/testing';
import { findBinary } from '../../src/dev/temporal-binaries';

/** The time-skipping test server, resolved offline first (see src/dev/temporal-binaries.ts). */
export function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const path = findBinary('testServer');
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: path ? { type: 'existing-path', path } : { type: 'cached-download' } },
  });
}
