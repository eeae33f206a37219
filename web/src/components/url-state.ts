import { useSearchParams } from 'react-router';

// List views keep their search, filters, sort and page in the URL, so a view can be shared or bookmarked.
export function useUrlState() {
  const [params, setParams] = useSearchParams();
  const get = (name: string, fallback = '') => params.get(name) ?? fallback;
  /** Sets (or clears, with '') parameters; any change other than the page itself goes back to the first page. */
  const set = (changes: Record<string, string>) =>
    setParams(
      (previous) => {
        const next = new URLSearchParams(previous);
        for (const [name, value] of Object.entries(changes)) {
          if (value) next.set(name, value);
          else next.delete(name);
        }
        if (!('page' in changes)) next.delete('page');
        return next;
      },
      { replace: false },
    );
  const page = Math.max(0, Number(get('page', '0')) || 0);
  return { get, set, page, setPage: (p: number) => set({ page: p > 0 ? String(p) : '' }) };
}

/** A date input's value (YYYY-MM-DD, local time) as the epoch-millisecond bound the list APIs take. */
export const dayBound = (value: string, endOfDay: boolean) =>
  value ? String(new Date(`${value}T${endOfDay ? '23:59:59.999' : '00:00:00'}`).getTime()) : undefined;
