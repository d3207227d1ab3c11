import { describe, expect, it } from 'vitest';
import { CsvParser, csvRecords, peekFirstLine } from './csv-records.js';

const TEXT = '\uFEFFa,b,c\r\n1,"x, y",3\n\n"say ""hi""",,"two\nlines"\r\n4,5,6';

function parseInChunks(text: string, size: number) {
  const parser = new CsvParser();
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(...parser.push(text.slice(i, i + size)));
  out.push(...parser.end());
  return out;
}

describe('csvRecords', () => {
  it('reads quoted commas, doubled quotes, line breaks inside quotes, CRLF and LF, a BOM and blank lines, with each record’s first line', async () => {
    const records = [];
    for await (const r of csvRecords((async function* () { yield TEXT; })())) records.push(r);
    expect(records).toEqual([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['1', 'x, y', '3'] },
      { line: 4, fields: ['say "hi"', '', 'two\nlines'] },
      { line: 6, fields: ['4', '5', '6'] },
    ]);
  });

  it('gives the same records whatever the chunk boundaries', () => {
    const whole = parseInChunks(TEXT, TEXT.length);
    for (let size = 1; size < TEXT.length; size += 1) expect(parseInChunks(TEXT, size)).toEqual(whole);
  });

  it('reports a quote left open at the end as a malformed record on its line', () => {
    expect(parseInChunks('a,b\n1,"open\n2,3\n', 4)).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', 'open\n2,3\n'], error: 'a quoted field is not closed before the end of the file' },
    ]);
  });

  it('splits on a semicolon or a tab when told, quotes holding the delimiter', async () => {
    const read = async (text: string, delimiter: ',' | ';' | '\t') => {
      const out = [];
      for await (const r of csvRecords((async function* () { yield text; })(), delimiter)) out.push(r.fields);
      return out;
    };
    expect(await read('sku;name\nA-1;"Kopi; Arabica"\nA-2;Teh, hitam\n', ';')).toEqual([['sku', 'name'], ['A-1', 'Kopi; Arabica'], ['A-2', 'Teh, hitam']]);
    expect(await read('sku\tname\r\nA-1\t"Kopi\tArabica"\r\n', '\t')).toEqual([['sku', 'name'], ['A-1', 'Kopi\tArabica']]);
  });
});

describe('peekFirstLine', () => {
  it('returns the first line across chunk boundaries and replays the whole stream', async () => {
    const chunks = ['\uFEFFSK', 'U;Na', 'me\r', '\nA;B\n', 'C;D'];
    const { firstLine, chunks: all } = await peekFirstLine((async function* () { yield* chunks; })());
    expect(firstLine).toBe('SKU;Name');
    let text = '';
    for await (const chunk of all) text += chunk;
    expect(text).toBe(chunks.join(''));
  });

  it('handles a file without a line break, and an empty one', async () => {
    expect((await peekFirstLine((async function* () { yield 'a;b'; })())).firstLine).toBe('a;b');
    expect((await peekFirstLine((async function* () {})())).firstLine).toBe('');
  });
});
