/**
 * What the parts of a document share (ooxml-document.ts is the façade): the package and its edits, the tab
 * list, the tabs held so far, and what each formula reads (worked out once, kept across writes).
 */
import type { HeldTabs } from './held-tabs.ts';
import type { OoxmlPackage } from './ooxml-package.ts';
import type { PrecedentsMemo } from './recalculation.ts';
import type { WorkbookTabs } from './workbook-tabs.ts';

export interface OpenWorkbook {
  pkg: OoxmlPackage;
  book: WorkbookTabs;
  held: HeldTabs;
  precedents: PrecedentsMemo;
}
