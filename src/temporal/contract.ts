/**
 * The contract shared by the API, the worker, the workflows and the tests:
 * workflow ids, signals, queries and payload types. It imports only @temporalio/workflow,
 * so workflow code may use it.
 */
export const DEFAULT_TASK_QUEUE = 'payments';

export const idleWorkflowId = (name: string) => `idle-${name}`;
