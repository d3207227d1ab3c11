// A streaming RFC 4180 reader: records come out as the chunks come in, so a file of any size is
// read in constant memory. Quoted fields may hold the delimiter, doubled quotes and line breaks;
// CRLF and LF both end a record; a UTF-8 byte order mark is dropped; blank lines are skipped.
// The delimiter is a comma unless the caller chose another (see csv-header.ts, which reads it off
// the header line).

/** The delimiters a data file may use: spreadsheets in many locales save `;`, and "TSV" means tab. */
export type CsvDelimiter = ',' | ';' | '\t';

/** One record and the physical line it starts on (the header is line 1). */
export interface CsvRecord {
  line: number;
  fields: string[];
  /** Set when the record is malformed (a quote left open at the end of the input). */
  error?: string;
}

/**
 * Records of a CSV text stream, header included.
 *
 * @example
 * for await (const { line, fields } of csvRecords(createReadStream(path, { encoding: 'utf8' }))) { ... }
 * for await (const { fields } of csvRecords(chunks, ';')) { ... } // a semicolon-separated file
 */
export async function* csvRecords(chunks: AsyncIterable<string>, delimiter: CsvDelimiter = ','): AsyncGenerator<CsvRecord> {
  const parser = new CsvParser(delimiter);
  for await (const chunk of chunks) yield* parser.push(chunk);
  yield* parser.end();
}

/**
 * The first line of a text stream (without its line break or a byte order mark), and the whole
 * stream again, so the delimiter can be chosen from the header before parsing starts.
 *
 * @example
 * const { firstLine, chunks: all } = await peekFirstLine(input.chunks);
 * const records = csvRecords(all, sniffDelimiter(firstLine, AREA_FIELDS));
 */
export async function peekFirstLine(chunks: AsyncIterable<string>): Promise<{ firstLine: string; chunks: AsyncIterable<string> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const seen: string[] = [];
  let text = '';
  let ended = false;
  while (!text.includes('\n')) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    seen.push(next.value);
    text += next.value;
  }
  const end = text.indexOf('\n');
  const firstLine = (end === -1 ? text : text.slice(0, end)).replace(/^\uFEFF/, '').replace(/\r$/, '');
  async function* replay(): AsyncGenerator<string> {
    yield* seen;
    if (ended) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { firstLine, chunks: replay() };
}

export class CsvParser {
  readonly #delimiter: CsvDelimiter;
  #line = 1;
  #recordLine = 1;
  #fields: string[] = [];
  #field = '';
  #quoted = false;
  /** Inside a quoted field, the previous character was a quote (closing it, or the first of a pair). */
  #quotePending = false;
  #started = false;
  #first = true;

  constructor(delimiter: CsvDelimiter = ',') {
    this.#delimiter = delimiter;
  }

  /** Feeds a chunk; returns the records it completed. */
  push(chunk: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    let text = chunk;
    if (this.#first && text.length > 0) {
      this.#first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let i = 0;
    const n = text.length;
    while (i < n) {
      // Fast path: at the start of a record, a complete line without quotes splits on the delimiter.
      if (!this.#started) {
        const end = text.indexOf('\n', i);
        if (end !== -1) {
          const raw = text.charCodeAt(end - 1) === 13 && end > i ? text.slice(i, end - 1) : text.slice(i, end);
          if (!raw.includes('"')) {
            if (raw !== '') out.push({ line: this.#line, fields: raw.split(this.#delimiter) });
            this.#line += 1;
            i = end + 1;
            continue;
          }
        }
        this.#started = true;
        this.#recordLine = this.#line;
      }
      const c = text[i]!;
      i += 1;
      if (this.#quoted) {
        if (this.#quotePending) {
          this.#quotePending = false;
          if (c === '"') {
            this.#field += '"';
            continue;
          }
          this.#quoted = false; // the quote closed the field; c is handled below as unquoted
        } else if (c === '"') {
          this.#quotePending = true;
          continue;
        } else {
          if (c === '\n') this.#line += 1;
          this.#field += c;
          continue;
        }
      }
      if (c === this.#delimiter) {
        this.#fields.push(this.#field);
        this.#field = '';
      } else if (c === '\n') {
        this.#finish(out);
        this.#line += 1;
      } else if (c === '\r') {
        if (text[i] !== '\n' && i < n) this.#field += c;
      } else if (c === '"' && this.#field === '') {
        this.#quoted = true;
      } else {
        this.#field += c;
      }
    }
    return out;
  }

  /** Ends the input; returns the last record if the input did not end with a line break. */
  end(): CsvRecord[] {
    const out: CsvRecord[] = [];
    if (this.#quoted && this.#quotePending) {
      this.#quoted = false;
      this.#quotePending = false;
    }
    if (this.#quoted) {
      this.#fields.push(this.#field);
      out.push({ line: this.#recordLine, fields: this.#fields, error: 'a quoted field is not closed before the end of the file' });
      this.#reset();
      return out;
    }
    if (this.#started) this.#finish(out);
    return out;
  }

  #finish(out: CsvRecord[]): void {
    this.#fields.push(this.#field);
    if (!(this.#fields.length === 1 && this.#fields[0] === '')) out.push({ line: this.#recordLine, fields: this.#fields });
    this.#reset();
  }

  #reset(): void {
    this.#fields = [];
    this.#field = '';
    this.#started = false;
  }
}
