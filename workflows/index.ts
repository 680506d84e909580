// Every workflow the worker registers. Workflow files import only @temporalio/workflow,
// @temporalio/common, the shared contract in src/temporal/, and types.
export { idleWorkflow } from './idle';
export { paymentWorkflow } from './payment';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { maintenanceWorkflow } from './maintenance';
export { accountVerificationWorkflow } from './verification';
