// HTML fragments of imported reports (Burp Suite's backgrounds, details and classifications) as plain text:
// paragraphs and list items on their own lines, links' targets listed, tags dropped, the common entities decoded.
// Linear: each pattern matches without backtracking over the input.

const ENTITIES = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
  ['nbsp', ' '],
]);

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES.get(name.toLowerCase()) ?? whole;
  });
}

export function htmlText(html: string): string {
  return decodeEntities(
    html
      .replace(/\r\n?/g, '\n')
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<li[^>]*>/gi, '\n- ')
      .replace(/<\/(p|div|ul|ol|h\d|table|tr)>/gi, '\n')
      .replace(/<[^>]*>/g, ''),
  )
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The http(s) targets of an HTML fragment's links, in order, once each. */
export function htmlLinks(html: string): string[] {
  const links = [...html.matchAll(/href\s*=\s*["']([^"'<>]{1,2048})["']/gi)].map((m) => decodeEntities(m[1]).trim());
  return [...new Set(links.filter((link) => /^https?:\/\//i.test(link)))];
}
