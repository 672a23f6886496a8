/**
 * `xl/sharedStrings.xml` streamed through saxes: each `<si>` is its plain text (runs joined, phonetic
 * guides left out), kept raw (OOXML `_xHHHH_` escapes are undone when a cell is read, as for inline text).
 */
import { SaxesParser } from 'saxes';

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

export function readSharedStrings(xml: string | undefined): string[] {
  if (xml === undefined) return [];
  const strings: string[] = [];
  const parser = new SaxesParser({ position: false });
  let inItem = false;
  let inText = false;
  let skipDepth = 0; // inside <rPh> (phonetic runs): not part of the cell's text
  let current = '';
  parser.on('opentag', (tag) => {
    const name = localName(tag.name);
    if (name === 'si') {
      inItem = true;
      current = '';
    } else if (name === 'rPh') skipDepth++;
    else if (name === 't' && inItem && skipDepth === 0) inText = true;
  });
  parser.on('closetag', (tag) => {
    const name = localName(tag.name);
    if (name === 'si') {
      strings.push(current);
      inItem = false;
    } else if (name === 'rPh') skipDepth--;
    else if (name === 't') inText = false;
  });
  parser.on('text', (text) => {
    if (inText) current += text;
  });
  parser.on('cdata', (text) => {
    if (inText) current += text;
  });
  parser.write(xml).close();
  return strings;
}
