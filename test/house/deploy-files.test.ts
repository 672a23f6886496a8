/**
 * The deployment files (Dockerfile, .dockerignore, compose.yaml, deploy/nginx.conf) cannot be built or started
 * here (no container engine), so their rules are checked on the files themselves: hadolint's main rules for the
 * Dockerfile (pinned base images, a user without root, exec-form commands, apt kept small, COPY with owner), the
 * health check against /healthz, and compose's topology (PostgreSQL with its readiness check, three instances
 * with the team's variables and one shared workbooks path, a round-robin load balancer naming all three on
 * 8787). compose.yaml is read by Debian's PyYAML (python3-yaml), an independent YAML parser.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  dockerfileStages,
  execForm,
  type Instruction,
  pinned,
  REPO_ROOT,
  stageEnv,
} from '../helpers/dockerfile.ts';

const ROOT = REPO_ROOT;
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

const stages = dockerfileStages();
const runtime = stages.at(-1) ?? [];
const only = (keyword: string, stage: Instruction[] = runtime) => stage.filter((i) => i.keyword === keyword);

describe('Dockerfile', () => {
  it('is multi-stage on a pinned Node 22 slim image, never latest', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const bases = stages.map((s) => s[0]?.args.split(/\s+/)[0] ?? '');
    for (const base of bases) {
      expect(pinned(base), base).toBe(true);
      expect(base, base).toMatch(/^node:22(\.\d+){0,2}-bookworm-slim$/);
    }
    expect(stages[0]?.[0]?.args).toMatch(/\bAS\s+build$/i);
    const whole = read('Dockerfile');
    expect(whole).not.toMatch(/:latest\b/);
  });

  it('installs with the lockfile without Electron, builds the dashboard and drops the development packages', () => {
    const build = stages[0] ?? [];
    expect(stageEnv(build).ELECTRON_SKIP_BINARY_DOWNLOAD).toBe('1');
    const runs = only('RUN', build)
      .map((i) => i.args)
      .join('\n');
    expect(runs).toMatch(/\bnpm ci\b/);
    expect(runs).toMatch(/\bnpm run build:ui\b/);
    expect(runs).toMatch(/\bnpm prune --omit=dev\b/);
  });

  it('runs as a user without root, from exec-form commands, with COPY owned by that user', () => {
    const users = only('USER');
    expect(users.length).toBeGreaterThan(0);
    const user = users.at(-1)?.args ?? '';
    expect(['root', '0', '0:0']).not.toContain(user);
    const userAt = runtime.indexOf(users.at(-1) as Instruction);
    const cmdAt = runtime.findIndex((i) => i.keyword === 'CMD');
    expect(userAt).toBeLessThan(cmdAt);
    for (const copy of only('COPY')) expect(copy.args, copy.args).toMatch(/--chown=/);
    for (const stage of stages) expect(only('ADD', stage)).toEqual([]); // DL3020: COPY, not ADD
    for (const keyword of ['CMD', 'ENTRYPOINT'])
      for (const i of only(keyword)) expect(execForm(i.args), i.args).not.toBeNull();
  });

  it('serves on 0.0.0.0:8787 with its data dir in a /data volume', () => {
    const cmd = execForm(only('CMD')[0]?.args ?? '') ?? [];
    expect(cmd.slice(0, 3)).toEqual(['node', 'bin/sheetport.js', 'serve']);
    expect(cmd.join(' ')).toContain('--host 0.0.0.0');
    expect(cmd.join(' ')).toContain('--port 8787');
    expect(existsSync(path.join(ROOT, 'bin/sheetport.js'))).toBe(true);
    expect(only('EXPOSE').map((i) => i.args)).toEqual(['8787']);
    expect(stageEnv(runtime).SHEETPORT_DATA_DIR).toBe('/data');
    expect(
      only('VOLUME')
        .map((i) => i.args)
        .join(' '),
    ).toMatch(/"\/data"|\/data/);
  });

  it('checks its health with Node (no curl in the slim image) against /healthz on the port it serves', () => {
    const checks = only('HEALTHCHECK');
    expect(checks).toHaveLength(1);
    const [, options = '', command = ''] = /^(.*?)CMD\s+(.*)$/.exec(checks[0]?.args ?? '') ?? [];
    expect(options).toMatch(/--interval=\d+s/);
    expect(options).toMatch(/--timeout=\d+s/);
    const argv = execForm(command) ?? [];
    expect(argv[0]).toBe('node');
    expect(argv.join(' ')).toContain('http://127.0.0.1:8787/healthz');
    expect(argv.join(' ')).not.toMatch(/\bcurl\b|\bwget\b/);
  });

  it('keeps any apt use small: no recommends, lists removed in the same layer', () => {
    for (const stage of stages) {
      for (const run of only('RUN', stage)) {
        if (!/apt-get\s+install/.test(run.args)) continue;
        expect(run.args).toMatch(/--no-install-recommends/);
        expect(run.args).toMatch(/rm -rf \/var\/lib\/apt\/lists\/\*/);
      }
      for (const run of only('RUN', stage)) expect(run.args).not.toMatch(/\bsudo\b|apt-get upgrade/);
    }
  });

  it('copies into the runtime stage only what exists after the build', () => {
    for (const copy of only('COPY')) {
      const parts = copy.args.split(/\s+/).filter((p) => !p.startsWith('--'));
      for (const source of parts.slice(0, -1)) {
        const inRepo = source.replace(/^\/app\//, '');
        // Made by the build stage: the packages and the dashboard's build.
        if (['node_modules', 'renderer/dist'].includes(inRepo)) continue;
        expect(existsSync(path.join(ROOT, inRepo)), source).toBe(true);
      }
    }
  });
});

describe('the production packages (what `npm prune --omit=dev` keeps)', () => {
  /** The package a bare import names: `@scope/name` or `name`, without a subpath. */
  const packageOf = (specifier: string) =>
    specifier
      .split('/')
      .slice(0, specifier.startsWith('@') ? 2 : 1)
      .join('/');

  it('hold every package the server and the CLI import', () => {
    const dependencies = Object.keys(JSON.parse(read('package.json')).dependencies as Json);
    const files = readdirSync(path.join(ROOT, 'server'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join('server', f));
    const imported = new Set<string>();
    for (const file of [...files, 'bin/sheetport.js']) {
      const text = read(file);
      for (const [, specifier = ''] of text.matchAll(
        /(?:from\s+|import\(\s*|require\(\s*)['"]([^'".][^'"]*)['"]/g,
      ))
        if (!specifier.startsWith('node:')) imported.add(packageOf(specifier));
    }
    expect(imported.size).toBeGreaterThan(5);
    const missing = [...imported].filter((name) => !dependencies.includes(name)).sort();
    expect(missing, 'imported at run time but not in dependencies').toEqual([]);
  });
});

describe('.dockerignore', () => {
  it('keeps installed output, history and local secrets out of the build context', () => {
    const lines = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['node_modules', '.git', '.env', 'dist', 'renderer/dist'])
      expect(lines, entry).toContain(entry);
  });
});

type Json = Record<string, unknown>;

/** compose.yaml as PyYAML reads it (anchors and merge keys resolved; `${...}` left for compose to fill in). */
function composeFile(): { services: Record<string, Json>; volumes: Json } {
  const json = execFileSync(
    '/usr/bin/python3',
    ['-c', 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', 'compose.yaml'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return JSON.parse(json);
}

const INSTANCES = ['sheetport-1', 'sheetport-2', 'sheetport-3'];

describe('compose.yaml', () => {
  const compose = composeFile();
  const services = compose.services;

  it('has PostgreSQL 16 with a pg_isready health check and a volume', () => {
    const pg = services.postgres as Json;
    expect(pg.image).toMatch(/^postgres:16\b/);
    expect(pinned(pg.image as string)).toBe(true);
    expect(JSON.stringify((pg.healthcheck as Json).test)).toContain('pg_isready');
    expect((pg.volumes as string[]).some((v) => v.endsWith(':/var/lib/postgresql/data'))).toBe(true);
    expect(String((pg.environment as Json).POSTGRES_PASSWORD)).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
  });

  it('runs three instances of this Dockerfile on the shared database, with the secrets key required', () => {
    for (const name of INSTANCES) {
      const s = services[name] as Json;
      expect(s, name).toBeDefined();
      expect(s.build, name).toBe('.');
      const env = s.environment as Json;
      expect(env.SHEETPORT_DATABASE_URL, name).toMatch(
        /^postgres:\/\/sheetport:[^@]+@postgres:5432\/sheetport$/,
      );
      expect(env.SHEETPORT_SECRET_KEY, name).toMatch(/^\$\{SHEETPORT_SECRET_KEY:\?/);
      expect(((s.depends_on as Json).postgres as Json).condition, name).toBe('service_healthy');
      const cmd = (s.command as string[]).join(' ');
      expect(cmd, name).toMatch(/^node bin\/sheetport\.js serve .*--host 0\.0\.0\.0/);
      expect(cmd, name).toContain('--port 8787');
      expect(s.ports, `${name} is reached through the load balancer only`).toBeUndefined();
    }
  });

  it('gives each instance its own data dir and all three the same workbooks volume at the same path', () => {
    const mounts = INSTANCES.map((name) => (services[name] as Json).volumes as string[]);
    const dataVolumes = mounts.map((m) => m.find((v) => v.endsWith(':/data'))?.split(':')[0]);
    expect(new Set(dataVolumes).size).toBe(3);
    const shared = mounts.map((m) => m.filter((v) => !v.endsWith(':/data')).sort());
    expect(shared[0]?.length).toBeGreaterThan(0);
    expect(shared[1]).toEqual(shared[0]);
    expect(shared[2]).toEqual(shared[0]);
    for (const v of [...dataVolumes, ...(shared[0] ?? []).map((m) => m.split(':')[0])])
      expect(Object.keys(compose.volumes), String(v)).toContain(v);
  });

  it('puts a pinned nginx in front on 8787 with deploy/nginx.conf', () => {
    const lb = services.lb as Json;
    expect(lb.image).toBe('nginx:1.27-alpine');
    expect(lb.ports).toEqual(['8787:8787']);
    expect(lb.volumes).toContain('./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro');
    expect([...(lb.depends_on as string[])].sort()).toEqual(INSTANCES);
    for (const [name, s] of Object.entries(services))
      if (typeof s.image === 'string' && s.build === undefined) expect(pinned(s.image), name).toBe(true);
  });
});

describe('deploy/nginx.conf', () => {
  const conf = read('deploy/nginx.conf').replace(/#.*$/gm, '');
  const upstream = /upstream\s+(\w+)\s*\{([^}]*)\}/.exec(conf);

  it('balances round robin over the three instances on 8787', () => {
    expect(upstream).not.toBeNull();
    const servers = [...(upstream?.[2] ?? '').matchAll(/^\s*server\s+([^\s;]+)/gm)].map((m) => m[1]);
    expect(servers).toEqual(INSTANCES.map((name) => `${name}:8787`));
    // Round robin is nginx's default: no other method is named.
    expect(upstream?.[2]).not.toMatch(/\b(least_conn|ip_hash|hash|random)\b/);
    expect(conf).toMatch(new RegExp(`proxy_pass\\s+http://${upstream?.[1]};`));
    expect(conf).toMatch(/listen\s+8787;/);
  });

  it('sends each MCP session to the instance that holds it, by its Mcp-Session-Id, unbuffered', () => {
    const mcp = /upstream\s+(\w+)\s*\{([^}]*hash\s+\$http_mcp_session_id;[^}]*)\}/.exec(conf);
    expect(mcp).not.toBeNull();
    const servers = [...(mcp?.[2] ?? '').matchAll(/^\s*server\s+([^\s;]+)/gm)].map((m) => m[1]);
    expect(servers).toEqual(INSTANCES.map((name) => `${name}:8787`));
    const location = /location\s+\/mcp\s*\{([^}]*)\}/.exec(conf)?.[1] ?? '';
    expect(location).toMatch(new RegExp(`proxy_pass\\s+http://${mcp?.[1]};`));
    expect(location).toMatch(/proxy_buffering\s+off;/);
    expect(location).toMatch(/proxy_set_header\s+Host\s+\$host;/);
  });

  it('passes the client address and Host on, and never retries a write on another instance', () => {
    expect(conf).toMatch(/proxy_set_header\s+X-Forwarded-For\s+\$proxy_add_x_forwarded_for;/);
    expect(conf).toMatch(/proxy_set_header\s+Host\s+\$host;/);
    expect(conf).not.toMatch(/non_idempotent/);
    const [, size = '0', unit = ''] = /client_max_body_size\s+(\d+)([kKmM]?);/.exec(conf) ?? [];
    const bytes = Number(size) * ({ k: 1024, m: 1024 * 1024 }[unit.toLowerCase()] ?? 1);
    expect(bytes).toBeGreaterThan(5 * 1024 * 1024);
  });
});
