import { StringDecoder } from 'node:string_decoder';
import type { ZipArchive } from '../ooxml/zip-archive.js';
import { inlineText } from './cells.js';

/**
 * Reads only the shared strings whose indexes are asked for, streaming the part and stopping after
 * the highest one: an edit never needs the whole table in memory. `rich` collects the indexes of
 * those with formatting runs.
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
  const stream = await archive.openStream(part);
  const decoder = new StringDecoder('utf8');
  let text = '';
  let index = -1;
  const open = /<(?:\w+:)?si[\s>/]/g;
  try {
    for await (const chunk of stream) {
      text += decoder.write(chunk as Buffer);
      let pos = 0;
      for (;;) {
        open.lastIndex = pos;
        const m = open.exec(text);
        if (!m) break;
        const selfClosing = text.indexOf('/>', m.index) === text.indexOf('>', m.index) - 1;
        let end: number;
        if (selfClosing) end = text.indexOf('>', m.index) + 1;
        else {
          const close = text.indexOf('si>', m.index + 3);
          // find the real closing tag `</si>` or `</x:si>`
          const closeTag = /<\/(?:\w+:)?si>/g;
          closeTag.lastIndex = m.index;
          const c = closeTag.exec(text);
          if (!c || close === -1) break;
          end = c.index + c[0].length;
        }
        index++;
        if (wanted.has(index)) {
          const item = text.slice(m.index, end);
          found.set(index, inlineText(item));
          if (rich && /<(?:\w+:)?r[\s>]/.test(item)) rich.add(index);
        }
        pos = end;
        if (index >= last) return found;
      }
      text = text.slice(pos);
    }
  } finally {
    stream.destroy();
  }
  return found;
}
