// What the operator scripts (admin, migrate, upgrade) share: the deployed stack as they find it, with the caller's AWS
// credentials, and how they end (exit codes and the error line).

/** The stack's outputs (infra/stack.ts: TableName, AssetsBucketName, ...); undefined when there is no such stack. */
export async function stackOutputs(stackName: string): Promise<Record<string, string> | undefined> {
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  try {
    const out = await new CloudFormationClient({}).send(new DescribeStacksCommand({ StackName: stackName }));
    return Object.fromEntries((out.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey!, o.OutputValue!]));
  } catch (error) {
    if ((error as Error).name === 'ValidationError' && /does not exist/.test((error as Error).message))
      return undefined;
    throw error;
  }
}

/** The types of the stack's own resources (each nested stack is one AWS::CloudFormation::Stack). */
export async function stackResourceTypes(stackName: string): Promise<string[]> {
  const { CloudFormationClient, paginateListStackResources } = await import('@aws-sdk/client-cloudformation');
  const types: string[] = [];
  const pages = paginateListStackResources({ client: new CloudFormationClient({}) }, { StackName: stackName });
  for await (const page of pages)
    for (const resource of page.StackResourceSummaries ?? []) types.push(resource.ResourceType!);
  return types;
}

/**
 * The region the AWS SDK resolves (AWS_REGION, else the profile's region), made AWS_REGION for the modules that read
 * it at import (shared/config.ts defaults to us-east-1 otherwise, which would address another region's table).
 */
export async function useResolvedRegion(): Promise<string> {
  if (process.env.AWS_REGION) return process.env.AWS_REGION;
  const { CloudFormationClient } = await import('@aws-sdk/client-cloudformation');
  const region = await new CloudFormationClient({}).config.region().catch(() => '');
  if (!region)
    throw new Error(
      "no AWS region: set AWS_REGION (or your profile's region, or pass --region where the command takes it)",
    );
  process.env.AWS_REGION = region;
  return region;
}

/** An error's message, with what to do when it is the AWS SDK finding no credentials. */
export function describeAwsError(error: Error): string {
  if (error.name === 'CredentialsProviderError')
    return `${error.message}: configure AWS credentials (aws configure, AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)`;
  return error.message;
}

/** A command line the script cannot run (unknown command, missing or invalid flag, no such stack): exit code 2. */
export class UsageError extends Error {}

/**
 * Runs an operator script's main and exits with the code it returns (0 when it returns nothing). A failure prints
 * `<name>: <message>` on stderr and exits 2 when the caller can fix the command line (a UsageError, or the service
 * refusing the input with a 4xx), else 1.
 */
export function runCli(name: string, main: () => Promise<number | void>): void {
  main().then(
    (code) => process.exit(code ?? 0),
    (error) => {
      const status = (error as { statusCode?: number }).statusCode;
      process.stderr.write(`${name}: ${describeAwsError(error as Error)}\n`);
      process.exit(error instanceof UsageError || (status && status < 500) ? 2 : 1);
    },
  );
}
