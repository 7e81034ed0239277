/** A 1×1 PNG image, base64. */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGPQzrn5HwAEpgJw14wu1wAAAABJRU5ErkJggg==";
/** A short silent mono 16-bit WAV file, base64. */
export const WAV_BASE64 = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The text of an elicitation or sampling answer, for a reply. */
export function textOf(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
