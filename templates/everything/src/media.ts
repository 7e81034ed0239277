/** A 1×1 PNG image, base64. */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGPQzrn5HwAEpgJw14wu1wAAAABJRU5ErkJggg==";
/** A short silent mono 16-bit WAV file, base64. */
export const WAV_BASE64 = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

/** Wait `ms` milliseconds; with a signal, reject with its reason as soon as it fires (tasks/cancel, a closed request). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The text of an elicitation or sampling answer, for a reply. */
export function textOf(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
