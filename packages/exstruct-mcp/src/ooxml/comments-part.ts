import { unescapeOoxmlText } from './shared-strings.js';
import { child, children, descendants, parseXmlTree } from './xml.js';
import type { ZipArchive } from './zip-archive.js';

export interface CommentInfo {
  /** A1 address of the cell the comment belongs to. */
  ref: string;
  author: string | undefined;
  text: string;
}

/**
 * Reads a legacy comments part (`xl/commentsN.xml`, the notes; Excel also mirrors threaded comments
 * here). Phonetic runs are skipped, rich runs flattened.
 */
export async function readCommentsPart(zip: ZipArchive, part: string): Promise<CommentInfo[]> {
  const root = parseXmlTree(await zip.readText(part), part);
  const authors = children(child(root, 'authors'), 'author').map((a) => a.text);
  return children(child(root, 'commentList'), 'comment').map((comment) => {
    const body = child(comment, 'text');
    const runs = body ? body.children.filter((c) => c.name === 't' || c.name === 'r') : [];
    const text = runs
      .map((run) =>
        run.name === 't'
          ? run.text
          : descendants(run, 't')
              .map((t) => t.text)
              .join(''),
      )
      .join('');
    const authorId = comment.attrs.authorId;
    return {
      ref: comment.attrs.ref ?? '',
      author: authorId === undefined ? undefined : authors[Number(authorId)],
      text: unescapeOoxmlText(text).trim(),
    };
  });
}
