// The severities of findings and alerts (the public Severity values), shared by every resource that counts them.

export const SEVERITIES = ['High', 'Medium', 'Low', 'Info'] as const;

export type Severity = (typeof SEVERITIES)[number];

/**
 * The severities the untriaged figures count (lastScan*Untriaged, findingsHealth): the public views have no Info
 * field, so informational findings are kept and listed (severity "Info") but never count as untriaged.
 */
export const RISK_SEVERITIES = ['High', 'Medium', 'Low'] as const;

export type RiskSeverity = (typeof RISK_SEVERITIES)[number];

export const isRiskSeverity = (severity: Severity): severity is RiskSeverity => severity !== 'Info';
