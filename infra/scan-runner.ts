import { Fn, RemovalPolicy } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { SecurityGroup, SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import {
  Cluster,
  ContainerImage,
  CpuArchitecture,
  FargateTaskDefinition,
  LogDrivers,
  OperatingSystemFamily,
} from 'aws-cdk-lib/aws-ecs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { RUNNER_CONTAINER } from '../shared/perch/runner-container.ts';

// The hosted runner of hosted scans (docs/HOSTED-SCANS.md, "Where scans run"): startScan launches one ECS Fargate
// task per run (shared/perch/runner.ts), whose container runs the scanner agent once. The image is built by
// `cdk deploy` from scanner/Dockerfile (Node and Debian's wapiti, and OWASP ZAP with `-c scanRunnerZap=true`);
// `cdk synth` only stages its folder, offline.
//
// The task reaches the target and the API over the internet: a VPC of public subnets and no NAT gateway (nothing
// to pay while idle), a security group that accepts nothing inbound. The agent calls only the service's HTTP API
// (scanner/ imports no AWS SDK), so the task role holds no grant; the execution role pulls the image and writes
// the log.

/** The repository's scanner/ folder: the image's build context. */
const SCANNER_DIR = new URL('../scanner', import.meta.url).pathname;

/**
 * OWASP ZAP's Linux release the image holds with `-c scanRunnerZap=true`, and the SHA-256 ZAP's own release index
 * (zaproxy/zap-admin, ZapVersions-2.17.xml) gives for its archive: the build fails on any other archive.
 */
export const RUNNER_ZAP = {
  version: '2.16.1',
  sha256: '5b2eb8319b085121a6e8ad50d69d67dbef8c867166f71a937bfc888d247a2ac1',
};

/** The context values that choose the runner's engines (docs/HOSTED-SCANS.md, Where scans run). */
export const RUNNER_ZAP_CONTEXT = 'scanRunnerZap';
export const RUNNER_ENGINE_CONTEXT = 'scanRunnerEngine';

/**
 * The image's build arguments and the task's memory from the context: wapiti alone by default; with
 * `scanRunnerZap=true` ZAP too (Java needs more memory: 4 GiB); `scanRunnerEngine=wapiti|zap` runs only that one.
 */
export function runnerImage(
  zap: unknown,
  engine: unknown,
): { buildArgs: Record<string, string>; memoryLimitMiB: number } {
  const withZap = zap === true || zap === 'true';
  if (zap !== undefined && !withZap && zap !== false && zap !== 'false')
    throw new Error(`context ${RUNNER_ZAP_CONTEXT} must be true or false, got ${JSON.stringify(zap)}`);
  if (engine !== undefined && engine !== 'wapiti' && engine !== 'zap')
    throw new Error(`context ${RUNNER_ENGINE_CONTEXT} must be wapiti or zap, got ${JSON.stringify(engine)}`);
  if (engine === 'zap' && !withZap)
    throw new Error(`context ${RUNNER_ENGINE_CONTEXT}=zap needs ${RUNNER_ZAP_CONTEXT}=true (ZAP in the image)`);
  return {
    buildArgs: {
      ...(withZap ? { ZAP_VERSION: RUNNER_ZAP.version, ZAP_SHA256: RUNNER_ZAP.sha256 } : {}),
      ...(engine ? { HAWK_ENGINE: engine as string } : {}),
    },
    memoryLimitMiB: withZap ? 4096 : 2048,
  };
}

export class ScanRunner extends Construct {
  readonly cluster: Cluster;
  readonly taskDefinition: FargateTaskDefinition;
  readonly securityGroup: SecurityGroup;
  readonly vpc: Vpc;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.vpc = new Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'runner', subnetType: SubnetType.PUBLIC, cidrMask: 24 }],
    });
    // Outbound to any port (a target may listen on any); what the agent may reach is its pinning proxy's call.
    this.securityGroup = new SecurityGroup(this, 'SecurityGroup', {
      vpc: this.vpc,
      description: 'hawk-api hosted scan runner: outbound only',
      allowAllOutbound: true,
    });
    this.cluster = new Cluster(this, 'Cluster', { vpc: this.vpc });
    const image = runnerImage(
      this.node.tryGetContext(RUNNER_ZAP_CONTEXT),
      this.node.tryGetContext(RUNNER_ENGINE_CONTEXT),
    );
    this.taskDefinition = new FargateTaskDefinition(this, 'TaskDefinition', {
      cpu: 1024,
      memoryLimitMiB: image.memoryLimitMiB,
      runtimePlatform: { cpuArchitecture: CpuArchitecture.X86_64, operatingSystemFamily: OperatingSystemFamily.LINUX },
    });
    const logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.taskDefinition.addContainer(RUNNER_CONTAINER, {
      image: ContainerImage.fromAsset(SCANNER_DIR, {
        platform: Platform.LINUX_AMD64,
        ...(Object.keys(image.buildArgs).length ? { buildArgs: image.buildArgs } : {}),
      }),
      logging: LogDrivers.awsLogs({ logGroup, streamPrefix: 'runner' }),
      // No command of its own: shared/perch/runner.ts gives each run's (agent --once) and environment.
    });
  }

  /** The environment of the function that launches runners (shared/config.ts, scanRunner). */
  environment(apiUrl: string): Record<string, string> {
    return {
      SCAN_RUNNER_CLUSTER: this.cluster.clusterArn,
      SCAN_RUNNER_TASK_DEFINITION: this.taskDefinition.taskDefinitionArn,
      SCAN_RUNNER_SUBNETS: Fn.join(
        ',',
        this.vpc.publicSubnets.map((subnet) => subnet.subnetId),
      ),
      SCAN_RUNNER_SECURITY_GROUP: this.securityGroup.securityGroupId,
      SCAN_RUNNER_API_URL: apiUrl,
    };
  }
}
