import type { TicketRecord } from './model.ts';

// A finding's ticket in the finding views (docs/TRACKERS.md, In the views): ApplicationAlertUri's statusLink (where
// the ticket is) and fields of ours, its key and state.

/**
 * PENDING (asked for, not made yet), OPEN, CLOSED_FIXED (closed by the service: the finding is gone), CLOSED_DONE,
 * CLOSED_NOT_PLANNED, CLOSED_INVALID (closed by people, read back), FAILED (could not be made: see the tracker).
 */
export function ticketState(ticket: TicketRecord): string {
  if (ticket.state === 'CREATING') return 'PENDING';
  if (ticket.state !== 'CLOSED') return ticket.state;
  if (ticket.closedBy === 'service') return 'CLOSED_FIXED';
  return ticket.resolution === 'notPlanned'
    ? 'CLOSED_NOT_PLANNED'
    : ticket.resolution === 'invalid'
      ? 'CLOSED_INVALID'
      : 'CLOSED_DONE';
}

export function ticketView(ticket: TicketRecord | undefined) {
  if (!ticket) return {};
  return { statusLink: ticket.url ?? '', ticketKey: ticket.key ?? '', ticketStatus: ticketState(ticket) };
}
