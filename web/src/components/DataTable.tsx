import type { ReactNode } from 'react';

/** A list as a table: column headings, then the caller's rows (`<tr>`s). */
export function DataTable({
  columns,
  caption,
  children,
  className,
}: {
  columns: string[];
  caption?: string;
  children: ReactNode;
  className?: string;
}) {
  return (
    <table className={className}>
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
