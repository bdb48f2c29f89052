// The content type `[Content_Types].xml` gives a part: its Override, else the Default of its extension.
// A patch deletes a part through a relationship only when the part is of the kind that relationship
// promises: a hostile calcChain relationship to `workbook.xml` must not take the workbook with it.
import { parseTree } from './xml.js';

export const CALC_CHAIN_CONTENT_TYPE =
  'application/vnd.openxmlformats-officedocument.spreadsheetml.calcChain+xml';

export class ContentTypes {
  /** By part name, lower-cased with its leading slash (OPC names are case-insensitive). */
  private readonly overrides = new Map<string, string>();
  /** By extension, lower-cased. */
  private readonly defaults = new Map<string, string>();

  constructor(xml: string) {
    const root = parseTree(xml).find((n) => n.local === 'Types');
    for (const node of root?.children ?? []) {
      const type = node.attrs.get('ContentType');
      if (type === undefined) continue;
      const name = node.attrs.get('PartName');
      const extension = node.attrs.get('Extension');
      if (node.local === 'Override' && name) this.overrides.set(name.toLowerCase(), type);
      else if (node.local === 'Default' && extension) this.defaults.set(extension.toLowerCase(), type);
    }
  }

  /** The part's content type (`xl/charts/chart1.xml` → `…drawingml.chart+xml`), if the package gives one. */
  of(part: string): string | undefined {
    const override = this.overrides.get(`/${part}`.toLowerCase());
    if (override !== undefined) return override;
    const dot = part.lastIndexOf('.');
    return dot < 0 ? undefined : this.defaults.get(part.slice(dot + 1).toLowerCase());
  }
}
