import type { ComponentChildren } from 'preact';

/**
 * A labelled region that scrolls (a wide table, a long payload). It takes keyboard focus so it can be scrolled
 * without a mouse (axe: scrollable-region-focusable).
 */
export function Scrollable({
  label,
  class: className,
  children,
}: {
  label: string;
  class: string;
  children: ComponentChildren;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable from the keyboard
    <section class={className} tabIndex={0} aria-label={label}>
      {children}
    </section>
  );
}
