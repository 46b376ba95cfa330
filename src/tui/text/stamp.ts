// The local-time stamp in the names of files the dashboard writes (saved logs, incident write-ups).

const p2 = (n: number) => String(n).padStart(2, '0');

/** `YYYYmmdd-HHMMSS` in local time. */
export function fileStamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}${p2(d.getMonth() + 1)}${p2(d.getDate())}-${p2(d.getHours())}${p2(d.getMinutes())}${p2(d.getSeconds())}`;
}
