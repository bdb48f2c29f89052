import { StringDecoder } from 'node:string_decoder';
import { throwIfCancelled } from '../ooxml/cancel.js';
import { isMainNs } from '../ooxml/namespaces.js';
import { unescapeOoxmlText } from '../ooxml/ooxml-text.js';
import { XmlError, XmlTokenizer } from '../ooxml/xml-tokenizer.js';
import { corrupt } from '../ooxml/xml.js';
import type { ZipArchive } from '../ooxml/zip-archive.js';

/**
 * Reads only the shared strings whose indexes are asked for, streaming the part through the package's
 * XML tokenizer and stopping after the highest one: an edit never needs the whole table in memory, and
 * a string of any length costs time in proportion to it. Text is the runs' text without phonetic runs.
 * `rich` collects the indexes of those with formatting runs or phonetic guides.
 */
export async function loadSharedStrings(
  archive: ZipArchive,
  part: string | undefined,
  wanted: ReadonlySet<number>,
  rich?: Set<number>,
): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  if (!part || wanted.size === 0 || !archive.has(part)) return found;
  const last = Math.max(...wanted);
  let index = -1;
  let text: string | undefined;
  let runs = false;
  let inText = false;
  let phonetic = 0;
  const tokenizer = new XmlTokenizer({
    open(tag) {
      if (!isMainNs(tag.ns)) return;
      if (tag.depth === 2 && tag.local === 'si') {
        index++;
        text = wanted.has(index) ? '' : undefined;
        runs = false;
      } else if (text === undefined) return;
      else if (tag.local === 'rPh') {
        phonetic++;
        runs = true; // a phonetic guide (ふりがな) is kept, like formatting runs, only by the cell itself
      } else if (tag.local === 'r') runs = true;
      else if (tag.local === 't' && phonetic === 0) inText = true;
    },
    text(value) {
      if (inText) text += value;
    },
    close(tag) {
      if (text === undefined) return;
      if (tag.local === 't') inText = false;
      else if (tag.local === 'rPh') phonetic--;
      else if (tag.depth === 2 && tag.local === 'si') {
        found.set(index, unescapeOoxmlText(text));
        if (runs) rich?.add(index);
        text = undefined;
      }
    },
  });
  const stream = await archive.openStream(part);
  const decoder = new StringDecoder('utf8');
  try {
    for await (const chunk of stream) {
      throwIfCancelled();
      tokenizer.write(decoder.write(chunk as Buffer));
      if (index > last || (index === last && text === undefined)) break;
    }
  } catch (error) {
    if (error instanceof XmlError) throw corrupt(part, error);
    throw error;
  } finally {
    stream.destroy();
  }
  return found;
}
