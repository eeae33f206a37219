import type { useUrlState } from './url-state';

/** "Sort by" and "Order" for a list, kept in the URL as `sort` and `dir`. */
export function SortSelects({
  url,
  fields,
  field,
  dir,
}: {
  url: ReturnType<typeof useUrlState>;
  fields: Record<string, string>;
  field: string;
  dir: string;
}) {
  return (
    <>
      <label>
        Sort by
        <select value={field} onChange={(e) => url.set({ sort: e.target.value })}>
          {Object.entries(fields).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Order
        <select value={dir} onChange={(e) => url.set({ dir: e.target.value })}>
          <option value="asc">Ascending</option>
          <option value="desc">Descending</option>
        </select>
      </label>
    </>
  );
}
