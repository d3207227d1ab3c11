// A streaming JSON-lines reader: one JSON value per line, blank lines skipped, each value with
// the line it stands on; a line that is not JSON comes out with an error instead of a value.

export interface JsonLineRecord {
  line: number;
  /** The line as written (trimmed). */
  text: string;
  value?: unknown;
  error?: string;
}

/**
 * @example
 * for await (const { line, value, error } of jsonLineRecords(createReadStream(path, { encoding: 'utf8' }))) { ... }
 */
export async function* jsonLineRecords(chunks: AsyncIterable<string>): AsyncGenerator<JsonLineRecord> {
  let rest = '';
  let line = 0;
  const parse = (text: string): JsonLineRecord | undefined => {
    line += 1;
    const trimmed = text.trim();
    if (trimmed === '') return undefined;
    try {
      return { line, text: trimmed, value: JSON.parse(trimmed) as unknown };
    } catch {
      return { line, text: trimmed, error: 'is not valid JSON' };
    }
  };
  let first = true;
  for await (let chunk of chunks) {
    if (first && chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    first = false;
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    for (const part of parts) {
      const record = parse(part);
      if (record) yield record;
    }
  }
  const last = parse(rest);
  if (last) yield last;
}
