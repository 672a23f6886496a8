// The `fields` system parameter: a field mask such as `a,b(c,d),e/f` or `sheets.properties.title`.
// Applied to a response it keeps only the named paths (arrays are masked element by element).

type MaskTree = Map<string, MaskTree | true>;

export function parseFieldMask(text: string): MaskTree {
  const root: MaskTree = new Map();
  let i = 0;
  const parseList = (tree: MaskTree): void => {
    for (;;) {
      while (text[i] === ' ') i++;
      let path = '';
      while (i < text.length && !',()'.includes(text[i] as string)) path += text[i++];
      path = path.trim();
      let node = tree;
      const parts = path.split(/[./]/).filter(Boolean);
      parts.forEach((part, index) => {
        const last = index === parts.length - 1;
        const existing = node.get(part);
        if (last && text[i] !== '(') {
          node.set(part, true);
          return;
        }
        if (existing === true) return;
        const child: MaskTree = existing ?? new Map();
        node.set(part, child);
        node = child;
      });
      if (text[i] === '(') {
        i++;
        parseList(node);
        i++; // ')'
      }
      if (text[i] === ',') {
        i++;
        continue;
      }
      return;
    }
  };
  parseList(root);
  return root;
}

export function applyFieldMask(value: unknown, mask: MaskTree): unknown {
  if (mask.has('*')) return value;
  if (Array.isArray(value)) return value.map((item) => applyFieldMask(item, mask));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of mask) {
    const child = (value as Record<string, unknown>)[key];
    if (child === undefined) continue;
    out[key] = sub === true ? child : applyFieldMask(child, sub);
  }
  return out;
}

export function maskWith(value: unknown, fields: string | null): unknown {
  if (!fields) return value;
  return applyFieldMask(value, parseFieldMask(fields));
}
