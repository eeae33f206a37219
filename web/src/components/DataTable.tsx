import type { ReactNode, Ref } from 'react';
import { tableFeatures, useTable, type ColumnDef, type RowData } from '@tanstack/react-table';
import { Pager, morePages } from './ui';

/**
 * One column of a DataTable: its heading (each cell's label too, when the table shows as cards on a phone) and how
 * a row's cell reads. `heading` replaces the heading's text with an element (a select-all checkbox) that still
 * carries `header` as its accessible name.
 */
export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  heading?: ReactNode;
  /** The cell's class: `wrap` for long text (URLs, names). */
  className?: string;
}

/** A page of a list whose page lives in the URL: the page shown, whether there is a next, and the total. */
export interface Paging {
  page: number;
  hasNext: boolean;
  onPage: (page: number) => void;
  total?: string;
}

/** The paging of a V1 list of `size` rows a page (its next page known from its total), the page in the URL. */
export const totalPaging = (
  url: { page: number; setPage: (page: number) => void },
  size: number,
  total: string | number | undefined,
): Paging => ({
  page: url.page,
  hasNext: morePages(url.page, size, total === undefined ? undefined : String(total)),
  onPage: url.setPage,
  total: total === undefined ? undefined : String(total),
});

// The core features only: rows, columns, headers and cells. Sorting, filtering and paging are the service's (the
// lists are paged and filtered by the API), so the table shows the page it is given, in its order.
const features = tableFeatures({});

/**
 * Every list of the dashboard as one accessible table (a caption, column headers with scope, a label per cell),
 * built on TanStack Table's headless core: no markup or style of its own, so the strict Content-Security-Policy
 * holds. With `paging`, the pager (Previous, Next, the page and the total) follows the table.
 */
export function DataTable<T extends RowData>({
  columns,
  rows,
  rowKey,
  caption,
  className,
  rowClassName,
  paging,
  tableRef,
  describedBy,
}: {
  columns: Column<T>[];
  rows: readonly T[];
  rowKey: (row: T, index: number) => string;
  caption?: string;
  className?: string;
  rowClassName?: (row: T) => string | undefined;
  paging?: Paging;
  tableRef?: Ref<HTMLTableElement>;
  describedBy?: string;
}) {
  const byId = new Map(columns.map((c) => [c.header, c]));
  const table = useTable({
    features,
    data: rows,
    columns: columns.map((c): ColumnDef<typeof features, T> => ({ id: c.header, header: c.header })),
    getRowId: rowKey,
  });
  return (
    <>
      <table ref={tableRef} className={className} aria-describedby={describedBy}>
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th scope="col" key={header.id}>
                  {byId.get(header.column.id)!.heading ?? header.column.id}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} className={rowClassName?.(row.original)}>
              {row.getAllCells().map((cell) => {
                const column = byId.get(cell.column.id)!;
                return (
                  <td key={cell.id} data-label={column.header} className={column.className}>
                    {column.cell(row.original)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {paging && <Pager {...paging} />}
    </>
  );
}

/**
 * A table whose rows are components of their own (a row edited in place, a row with its own header cell): the
 * caption and the column headings, then the caller's `<tr>`s. Lists use DataTable.
 */
export function RowsTable({
  columns,
  caption,
  children,
}: {
  columns: string[];
  caption?: string;
  children: ReactNode;
}) {
  return (
    <table>
      {caption && <caption className="visually-hidden">{caption}</caption>}
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col" key={column}>
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
