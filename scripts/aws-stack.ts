// A deployed stack as the operator scripts (admin, migrate, upgrade) find it, with the caller's AWS credentials.

/** The stack's outputs (infra/stack.ts: TableName, AssetsBucketName, ...); undefined when there is no such stack. */
export async function stackOutputs(stackName: string): Promise<Record<string, string> | undefined> {
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  try {
    const out = await new CloudFormationClient({}).send(new DescribeStacksCommand({ StackName: stackName }));
    return Object.fromEntries((out.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey!, o.OutputValue!]));
  } catch (error) {
    if ((error as Error).name === 'ValidationError' && /does not exist/.test((error as Error).message)) return undefined;
    throw error;
  }
}
