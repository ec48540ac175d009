/** Text made safe inside HTML, in an element or a quoted attribute: `& < > " '` as numeric references. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
