/** Where the local server serves the wake channel (scripts/local/wake-channel.ts). */
export const WAKE_PATH = '/api/v1/perch/wake';
