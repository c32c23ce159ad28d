/** Saves `data` as a pretty-printed JSON file through the browser's download. */
export function downloadJson(data: unknown, fileName: string): void {
  const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // revoking at once can cancel the download before the browser has read the blob
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
