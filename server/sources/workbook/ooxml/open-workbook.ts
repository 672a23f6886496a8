/**
 * What the parts of a document share (ooxml-document.ts is the façade): the package and its edits, the tab
 * list, the tabs held so far, what each formula reads (worked out once, kept across writes), and the limits.
 */
import type { GridLimits } from '../../tab.ts';
import type { HeldTabs } from './held-tabs.ts';
import type { OoxmlPackage } from './ooxml-package.ts';
import type { PrecedentsMemo } from './recalculation.ts';
import type { WorkbookTabs } from './workbook-tabs.ts';

export interface OpenWorkbook {
  pkg: OoxmlPackage;
  book: WorkbookTabs;
  held: HeldTabs;
  precedents: PrecedentsMemo;
  /** The file's limits, when the document was made for one. */
  limits?: GridLimits;
}
