// Upgrading a stack deployed before the operations moved into nested stacks (infra/stack.ts), whose API stack holds
// every operation's route itself. API Gateway refuses a route whose key the API already has (409
// ConflictException), and CloudFormation creates a stack's new resources before it deletes the old ones, so one
// deploy cannot move a route from the API stack into a nested stack. `npm run upgrade` (scripts/upgrade.ts) first
// deploys with OPERATION_ROUTES_CONTEXT = 'none': the nested stacks with their functions but without the operations'
// routes, which deletes the old routes and functions; its next deploy creates the routes in the nested stacks.
// Between the two the operations answer 404 (health and docs keep answering): a few minutes, once.

export const OPERATION_ROUTES_CONTEXT = 'operationRoutes';

/** Whether the stack declares the operations' routes: always, but in the upgrade's deploy that removes the old ones. */
export function declaresOperationRoutes(contextValue: unknown): boolean {
  if (contextValue === undefined || contextValue === null || contextValue === '') return true;
  if (contextValue === 'none') return false;
  throw new Error(
    `context ${OPERATION_ROUTES_CONTEXT} takes 'none' (the upgrade's deploy that removes the old routes), not ${JSON.stringify(contextValue)}`,
  );
}

/**
 * Whether a deployed API stack holds operation routes itself (a version before the nested stacks): more routes of
 * its own than the service function's, from its resource types (CloudFormation ListStackResources).
 */
export function holdsOperationRoutes(resourceTypes: string[], servicePaths: readonly string[]): boolean {
  return resourceTypes.filter((type) => type === 'AWS::ApiGatewayV2::Route').length > servicePaths.length;
}
