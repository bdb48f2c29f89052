import { unescapeOoxmlText } from './ooxml-text.js';
import { parseXmlStream } from './xml.js';
import type { ZipArchive } from './zip-archive.js';

/**
 * Streams the shared-string table into an array. Rich-text runs are flattened to their plain text;
 * phonetic guides (`rPh`, the furigana of Japanese workbooks) are skipped so they do not leak into values.
 */
export async function readSharedStrings(zip: ZipArchive, part: string | undefined): Promise<string[]> {
  const strings: string[] = [];
  if (!part || !zip.has(part)) return strings;
  let inItem = false;
  let inText = false;
  let phoneticDepth = 0;
  let current = '';
  await parseXmlStream(await zip.openStream(part), part, {
    open(name) {
      if (name === 'si') {
        inItem = true;
        current = '';
      } else if (name === 'rPh') {
        phoneticDepth++;
      } else if (name === 't' && inItem && phoneticDepth === 0) {
        inText = true;
      }
    },
    text(text) {
      if (inText) current += text;
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') phoneticDepth--;
      else if (name === 'si') {
        strings.push(unescapeOoxmlText(current));
        inItem = false;
      }
    },
  });
  return strings;
}

export { unescapeOoxmlText } from './ooxml-text.js';
