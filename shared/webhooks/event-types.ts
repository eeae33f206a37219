// The events a webhook can subscribe to (docs/WEBHOOKS.md, Events).
export const WEBHOOK_EVENTS = [
  'scanStarted',
  'scanCompleted',
  'scanErrored',
  'findingStatusChanged',
  'riskAcceptanceExpired',
  'findingOverdue',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
