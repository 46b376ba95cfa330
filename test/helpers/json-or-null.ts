// A response body read as JSON where it is JSON: tests of error paths get text/plain, HTML or nothing
// back as often as a JSON document, and keep the text beside it.
export function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
