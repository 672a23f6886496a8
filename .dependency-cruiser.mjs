/**
 * The house's dependency rules (docs/architecture.md, "Layers" and "Rules of the house"), held by
 * dependency-cruiser: `npm run lint:deps`, part of `npm run lint`. Every import counts, type-only and dynamic ones
 * included, resolved to the file it names. test/ and bench/ are free and not checked;
 * test/house/dependency-rules.test.ts shows each kind of rule failing on a small tree that breaks it.
 *
 * TypeScript is read with swc (@swc/core): dependency-cruiser cannot use the TypeScript 7 compiler this project
 * type-checks with.
 */

import path from 'node:path';

/**
 * The layers of server/ and its front ends, top first. A module imports only from its own layer or the layers below
 * it; within a layer, anything that is not a cycle. What a lower layer must tell a higher one comes up as a function
 * it was handed, never as an import. Every module under server/ lies in exactly one layer (test/house/dependency-rules.test.ts).
 */
export const LAYERS = [
  { name: 'front-ends', paths: ['^server/cli[.]ts$', '^server/cli/', '^main/'] },
  { name: 'entry', paths: ['^server/index[.]ts$', '^server/small-footprint(-first)?[.]ts$'] },
  {
    name: 'wiring',
    paths: ['^server/app[.]ts$', '^server/context[.]ts$', '^server/listen[.]ts$', '^server/tunnel/'],
  },
  { name: 'http', paths: ['^server/http/'] },
  { name: 'services', paths: ['^server/(connections|rows|spreadsheets|changes|webhooks|limits|mcp)/'] },
  // The engines under the repository interfaces they implement; who may import them: `store-behind-repositories`.
  { name: 'store-engines', paths: ['^server/store/', '^server/store-pg/'] },
  { name: 'records', paths: ['^server/(sources|repositories|diff)/'] },
  {
    name: 'base',
    paths: [
      '^server/(lib|logs|secrets)/',
      '^server/(errors|config|team-config|mcp-config|server-info)[.]ts$',
    ],
  },
];

/** The modules that open a store and hand its repositories down (or, for export and import, read one whole). */
export const WIRING = ['^server/context[.]ts$', '^server/cli/(kit|admin|dashboard|records)[.]ts$'];

/** One rule per layer: nothing in it imports a layer above it. */
function layersPointDown() {
  return LAYERS.slice(1).map((layer, i) => {
    const above = LAYERS.slice(0, i + 1);
    return {
      name: `down-from-${layer.name}`,
      comment: `arrows point down: ${layer.name} imports nothing of ${above.map((l) => l.name).join(', ')}`,
      severity: 'error',
      from: { path: layer.paths },
      to: { path: above.flatMap((l) => l.paths) },
    };
  });
}

const forbidden = [
  ...layersPointDown(),
  {
    name: 'no-cycles',
    comment: 'no module reaches itself through its imports (type-only ones included)',
    severity: 'error',
    from: {},
    to: { circular: true },
  },
  {
    name: 'imports-resolve',
    comment: 'every import names a file or package that exists, so no arrow escapes the rules unseen',
    severity: 'error',
    from: {},
    to: { couldNotResolve: true },
  },
  {
    name: 'store-behind-repositories',
    comment:
      'routes, services and the CLI use the repository interfaces; only the wiring opens store/ or store-pg/',
    severity: 'error',
    from: { pathNot: ['^server/store/', '^server/store-pg/', ...WIRING] },
    to: { path: ['^server/store/', '^server/store-pg/'] },
  },
  {
    name: 'sqlite-only-in-store',
    comment: 'outside store/ nothing imports better-sqlite3',
    severity: 'error',
    from: { pathNot: '^server/store/' },
    to: { path: '^node_modules/better-sqlite3/' },
  },
  {
    name: 'postgres-only-in-store-pg',
    comment: 'outside store-pg/ nothing imports node-postgres',
    severity: 'error',
    from: { pathNot: '^server/store-pg/' },
    to: { path: '^node_modules/pg/' },
  },
  {
    name: 'node-http-without-its-es-facade',
    comment:
      'node:http is imported for types only; its values come from server/lib/node-http.ts (an ES import of it loads undici at every start)',
    severity: 'error',
    from: { path: '^(server|main)/', pathNot: '^server/lib/node-http[.]ts$' },
    to: { path: '^http$', dependencyTypesNot: ['type-only'] },
  },
  {
    name: 'store-without-store-pg',
    comment: 'store/ never imports store-pg/: the embedded default runs without PostgreSQL',
    severity: 'error',
    from: { path: '^server/store/' },
    to: { path: '^server/store-pg/' },
  },
  {
    name: 'store-pg-without-store',
    comment:
      'store-pg/ imports nothing of store/: what both databases share is written once above them (repositories/rules/)',
    severity: 'error',
    from: { path: '^server/store-pg/' },
    to: { path: '^server/store/' },
  },
  {
    name: 'repositories-name-no-implementation',
    comment:
      "the repository interfaces and the storage rules written once above both engines (repositories/rules/) import only each other, Node's built-ins, the cell values a source reads and the base layer (the error type, lib/, the secrets provider and sealing at rest)",
    severity: 'error',
    from: { path: '^server/repositories/' },
    to: {
      dependencyTypesNot: ['core'],
      pathNot: [
        '^server/repositories/',
        '^server/sources/source[.]ts$',
        '^server/errors[.]ts$',
        '^server/lib/',
        '^server/secrets/(provider|at-rest)[.]ts$',
      ],
    },
  },
  {
    name: 'kinds-behind-the-registry',
    comment: "a kind's folder (sources/workbook/, sources/google/) is imported only through sources/index.ts",
    severity: 'error',
    from: { pathNot: ['^server/sources/index[.]ts$', '^server/sources/[^/]+/'] },
    to: { path: '^server/sources/[^/]+/' },
  },
  {
    name: 'no-kind-imports-another',
    comment: "a kind imports no other kind's folder; what two kinds share sits in sources/ itself",
    severity: 'error',
    from: { path: '^server/sources/([^/]+)/' },
    to: { path: '^server/sources/[^/]+/', pathNot: '^server/sources/$1/' },
  },
  {
    name: 'server-without-its-front-ends',
    comment: 'nothing in server/ imports main/, renderer/, scripts/, test/ or bench/',
    severity: 'error',
    from: { path: '^server/' },
    to: { path: '^(main|renderer|scripts|test|bench)/' },
  },
  {
    name: 'main-through-the-public-entry',
    comment:
      'main/ starts the server through server/index.ts only (and small-footprint-first.ts, which runs before it loads)',
    severity: 'error',
    from: { path: '^main/' },
    to: { path: '^server/', pathNot: '^server/(index|small-footprint-first)[.]ts$' },
  },
  {
    name: 'renderer-over-http-only',
    comment: 'the dashboard talks to the server over HTTP: renderer/ imports nothing of server/ or main/',
    severity: 'error',
    from: { path: '^renderer/' },
    to: { path: '^(server|main)/' },
  },
];

/**
 * An arrow that runs the wrong way today, named with why it stands: `from` imports `to` as written, with the
 * dependency types dependency-cruiser reports for it (`type-only` when only types cross).
 */
export function knownViolation(rule, from, to, dependencyTypes, comment) {
  const unresolvedTo = path.posix.relative(path.posix.dirname(from), to);
  return {
    type: 'dependency',
    rule: { name: rule, severity: 'error' },
    from,
    to,
    unresolvedTo: unresolvedTo.startsWith('.') ? unresolvedTo : `./${unresolvedTo}`,
    dependencyTypes: ['local', 'import', ...dependencyTypes],
    comment,
  };
}

/**
 * The exceptions, each narrow (one import of one file), made with `knownViolation`: none today. The lint fails when
 * one no longer occurs (`staleEntriesSeverity`), so an exception goes with the code that needed it.
 */
const knownViolations = [];

export default {
  forbidden,
  options: {
    parser: 'swc',
    doNotFollow: { path: '^node_modules/' },
    exclude: { path: '^renderer/dist/' },
    // Node's own ESM resolution: the exports map's `import` and `default` conditions, file extensions as written.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'node', 'default'],
      mainFields: ['module', 'main'],
      extensions: ['.ts', '.tsx', '.cts', '.mts', '.js', '.cjs', '.mjs', '.json'],
    },
    knownViolations,
    baseline: { staleEntriesSeverity: 'error' },
  },
};
