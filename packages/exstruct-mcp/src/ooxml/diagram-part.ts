import { child, children, descendants, parseXmlTree, type XmlElement } from './xml.js';
import type { ZipArchive } from './zip-archive.js';

export interface DiagramNode {
  text: string;
  kids: DiagramNode[];
}

export interface DiagramInfo {
  /** The layout's title, or the last segment of its id (`urn:…/layout/cycle2` → `cycle2`). */
  layout: string;
  nodes: DiagramNode[];
}

function pointText(point: XmlElement): string {
  const body = child(point, 't');
  return descendants(body, 'p')
    .map((p) =>
      descendants(p, 't')
        .map((t) => t.text)
        .join(''),
    )
    .join('\n')
    .trim();
}

/**
 * Reads a SmartArt data part (`xl/diagrams/dataN.xml`): the content points and their parent/child
 * connections become a tree under the document point, siblings in their `srcOrd` order.
 */
export async function readDiagramPart(
  zip: ZipArchive,
  dataPart: string,
  layoutPart: string | undefined,
): Promise<DiagramInfo> {
  const model = parseXmlTree(await zip.readText(dataPart), dataPart);
  const points = children(child(model, 'ptLst'), 'pt');
  const byId = new Map<string, XmlElement>();
  let docId: string | undefined;
  let layoutId: string | undefined;
  for (const point of points) {
    const id = point.attrs.modelId;
    if (id === undefined) continue;
    byId.set(id, point);
    if (point.attrs.type === 'doc') {
      docId = id;
      layoutId = child(point, 'prSet')?.attrs.loTypeId;
    }
  }
  const kidsOf = new Map<string, Array<{ order: number; id: string }>>();
  for (const cxn of children(child(model, 'cxnLst'), 'cxn')) {
    const type = cxn.attrs.type ?? 'parOf';
    if (type !== 'parOf') continue;
    const { srcId, destId } = cxn.attrs;
    if (srcId === undefined || destId === undefined) continue;
    const list = kidsOf.get(srcId) ?? [];
    list.push({ order: Number(cxn.attrs.srcOrd ?? list.length), id: destId });
    kidsOf.set(srcId, list);
  }
  const build = (id: string, depth: number): DiagramNode[] => {
    if (depth > 64) return [];
    const kids = (kidsOf.get(id) ?? []).sort((a, b) => a.order - b.order);
    const nodes: DiagramNode[] = [];
    for (const kid of kids) {
      const point = byId.get(kid.id);
      const type = point?.attrs.type ?? 'node';
      if (!point || (type !== 'node' && type !== 'asst')) continue;
      nodes.push({ text: pointText(point), kids: build(kid.id, depth + 1) });
    }
    return nodes;
  };
  const nodes = docId === undefined ? [] : build(docId, 0);
  let layout: string | undefined;
  if (layoutPart && zip.has(layoutPart)) {
    const def = parseXmlTree(await zip.readText(layoutPart), layoutPart);
    layout = child(def, 'title')?.attrs.val || undefined;
    layoutId ??= def.attrs.uniqueId;
  }
  layout ??= layoutId ? (layoutId.split('/').pop() ?? layoutId) : 'unknown';
  return { layout, nodes };
}
