// Namespace URIs of the OOXML vocabularies this package reads and writes, in both conformance classes:
// Transitional (what Excel writes by default) and Strict (ISO/IEC 29500 Strict, purl.oclc.org).

export const XML_NS = 'http://www.w3.org/XML/1998/namespace';
export const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

export const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
export const MAIN_NS_STRICT = 'http://purl.oclc.org/ooxml/spreadsheetml/main';
/** Relationship ids (`r:id`) and relationship types. */
export const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
export const REL_NS_STRICT = 'http://purl.oclc.org/ooxml/officeDocument/relationships';
/** The `.rels` parts themselves (the same in both classes). */
export const PACKAGE_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
export const CONTENT_TYPES_NS = 'http://schemas.openxmlformats.org/package/2006/content-types';

export function isMainNs(ns: string): boolean {
  return ns === MAIN_NS || ns === MAIN_NS_STRICT;
}

export function isRelNs(ns: string): boolean {
  return ns === REL_NS || ns === REL_NS_STRICT;
}

/** The vocabulary of a workbook: Strict packages use other URIs for the same elements and types. */
export interface Conformance {
  strict: boolean;
  main: string;
  rel: string;
}

export function conformanceOf(mainNs: string): Conformance {
  const strict = mainNs === MAIN_NS_STRICT;
  return { strict, main: strict ? MAIN_NS_STRICT : MAIN_NS, rel: strict ? REL_NS_STRICT : REL_NS };
}

/** The relationship type URI of a kind (`worksheet`, `styles`, …) in a conformance class. */
export function relType(conformance: Conformance, kind: string): string {
  return `${conformance.rel}/${kind}`;
}
