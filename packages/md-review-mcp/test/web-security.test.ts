import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StaticFiles, UI_DIR } from '../src/web/static-files.js';
import { connect, eventually, http, Person, workspace, type Connected } from './helpers.js';

let ws: Awaited<ReturnType<typeof workspace>>;
let mcp: Connected;
let person: Person;
let call: Promise<unknown>;

beforeAll(async () => {
  ws = await workspace();
  mcp = await connect(ws.root, ws.home);
  call = mcp.call('review_request', {
    resume_key: 'sec',
    title: 'Security',
    root: ws.root,
    files: ['docs/plan.md'],
    working_path: ws.root,
  });
  person = new Person(await eventually(() => mcp.launcher.opened[0] ?? Promise.reject(new Error('not yet'))));
});
afterAll(async () => {
  await person.cancel();
  await call;
  await mcp.close();
  await ws.cleanup();
});

const api = (headers: Record<string, string>, method = 'GET', rest = '', body?: unknown) =>
  http(person.port, method, `/api/sessions/${person.key}${rest}`, headers, body);
const good = () => ({ Authorization: `Bearer ${person.token}`, 'Content-Type': 'application/json' });

describe('the review web server', () => {
  it('listens on 127.0.0.1 and serves the page with a strict CSP and no token in the HTML', async () => {
    const page = await http(person.port, 'GET', `/review/${person.key}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(
      /default-src 'none'; script-src 'self'; style-src 'self'/,
    );
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.body).not.toContain(person.token);
    expect(page.body).not.toMatch(/<script>[^<]/); // no inline script
  });

  it('refuses a wrong or missing token, and a key it does not serve', async () => {
    expect((await api({ Authorization: 'Bearer wrong' })).status).toBe(403);
    expect((await api({})).status).toBe(403);
    expect((await http(person.port, 'GET', '/api/sessions/other', good())).status).toBe(403);
    expect((await api(good())).status).toBe(200);
  });

  it('refuses another Host (DNS rebinding) and another Origin, even with the right token', async () => {
    expect((await api({ ...good(), Host: `evil.example:${person.port}` })).status).toBe(421);
    expect((await http(person.port, 'GET', `/review/${person.key}`, { Host: 'attacker.test' })).status).toBe(
      421,
    );
    expect((await api({ ...good(), Origin: 'http://evil.example' })).status).toBe(403);
    expect((await api({ ...good(), 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect(
      (await api({ ...good(), Origin: `http://localhost:${person.port}`, Host: `localhost:${person.port}` }))
        .status,
    ).toBe(200);
  });

  it('accepts edits only as JSON (no form posts), and nothing changed after refusals', async () => {
    const form = await api(
      { Authorization: `Bearer ${person.token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      'POST',
      '/global-comments',
      'comment=x',
    );
    expect(form.status).toBe(415);
    const foreign = await api({ ...good(), Origin: 'http://evil.example' }, 'POST', '/global-comments', {
      comment: 'forged',
    });
    expect(foreign.status).toBe(403);
    expect((await person.session()).inline_comments).toEqual([]);
    expect((await api(good(), 'GET')).json<{ global_comments: unknown[] }>().global_comments).toEqual([]);
  });

  it('serves no file but the session files, named by index', async () => {
    for (const probe of [
      '/assets/..%2F..%2Fpackage.json',
      '/assets/../../package.json',
      '/etc/passwd',
      '/review/x/../../package.json',
      '/api/../package.json',
    ]) {
      const reply = await http(person.port, 'GET', probe, good());
      expect(reply.body).not.toContain('"name": "md-review-mcp"');
      expect(reply.status).toBeGreaterThanOrEqual(400);
    }
    expect((await api(good(), 'GET', '/files/1')).status).toBe(404);
    expect((await api(good(), 'GET', '/files/..%2F..%2Fetc%2Fpasswd')).status).toBe(404);
    const file = await api(good(), 'GET', '/files/0');
    expect(file.json()).toMatchObject({ file: path.join('docs', 'plan.md'), lineCount: 16 });
  });

  it('answers 400 for a malformed escape, and asking for many names does not grow the asset cache', async () => {
    expect((await http(person.port, 'GET', '/assets/%')).status).toBe(400);
    expect((await http(person.port, 'GET', '/review/%E0%A4%A')).status).toBe(400);
    const files = new StaticFiles(UI_DIR);
    const built = await files.size();
    expect(built).toBeGreaterThan(1); // index.html and the assets
    for (let i = 0; i < 2000; i++) expect(await files.asset(`missing-${i}.js`)).toBeUndefined();
    expect(await files.size()).toBe(built);
    const missing = await Promise.all(
      Array.from({ length: 200 }, (_, i) => http(person.port, 'GET', `/assets/nothing-${i}.js`)),
    );
    expect(missing.every((reply) => reply.status === 404)).toBe(true);
  });

  it('answers bad edits with clear errors and keeps the session intact', async () => {
    const outOfRange = await api(good(), 'POST', '/comments', {
      fileIndex: 0,
      startLine: 15,
      endLine: 99,
      comment: 'x',
      severity: 'must',
    });
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.json()).toMatchObject({
      error: { code: 'INVALID_ARGUMENT', message: 'Lines 15–99 are not a range of this file (1–16).' },
    });
    const severity = await api(good(), 'POST', '/comments', {
      fileIndex: 0,
      startLine: 1,
      endLine: 1,
      comment: 'x',
      severity: 'blocker',
    });
    expect(severity.json()).toMatchObject({
      error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('severity') },
    });
    const stale = await api(good(), 'POST', '/comments', {
      fileIndex: 0,
      startLine: 1,
      endLine: 1,
      comment: 'x',
      severity: 'must',
      fileContentHash: 'old',
    });
    expect(stale.status).toBe(409);
    const broken = await api(good(), 'POST', '/comments', '{not json');
    expect(broken.status).toBe(400);
    expect((await person.session()).inline_comments).toEqual([]);
  });
});
