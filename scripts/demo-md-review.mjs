// The md-review part of `pnpm demo`: the agent asks for a review (the server runs with --no-open), and
// this script plays the person: it gets the link with `md-review-mcp link` (the agent is never given
// it), then goes through the page's JSON API — one comment on lines 3–5, a global comment, the file
// marked reviewed, Finalize — so the demo ends with a real review result.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** The person's side: the page's JSON API, with the token from the review URL's fragment. */
function personAt(url) {
  const { origin, pathname, hash } = new URL(url);
  const token = new URLSearchParams(hash.slice(1)).get('token');
  const api = `${origin}/api/sessions${pathname.slice('/review'.length)}`;
  return async (method, rest, body) => {
    const response = await fetch(`${api}${rest}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(method === 'GET' ? {} : { body: JSON.stringify(body ?? {}) }),
    });
    if (!response.ok) throw new Error(`${method} ${rest}: ${response.status} ${await response.text()}`);
    return response.json();
  };
}

/** The person's link of review `key`, as `md-review-mcp link <key>` prints it in a terminal. */
async function personsLink(bin, env, key) {
  const { stdout } = await promisify(execFile)(process.execPath, [bin, 'link', key], {
    env: { ...process.env, ...env },
  });
  const link = /http:\/\/\S+#token=\S+/.exec(stdout)?.[0];
  if (!link) throw new Error(`md-review-mcp link ${key} printed no link:\n${stdout}`);
  return link;
}

/** Runs the review (`bin` and `env`: the server's, for the person's terminal); returns the unexpected results. */
export async function reviewDemo(client, root, show, { bin, env }) {
  const key = (await client.callTool({ name: 'session_new_id', arguments: {} })).content[0].text;
  const args = {
    resume_key: key,
    title: 'Rollout plan review',
    root,
    files: ['rollout-plan.md'],
    working_path: root,
  };
  console.log(`\n  → session_new_id() ← ${key}`);
  console.log(`\n  → review_request(${JSON.stringify(args)})  — blocks until the person finalizes`);
  let url;
  const progress = [];
  const started = performance.now();
  const call = client.callTool({ name: 'review_request', arguments: args }, undefined, {
    onprogress: ({ message }) => {
      progress.push(message);
      url ??= /http:\/\/\S+/.exec(message ?? '')?.[0];
    },
  });
  while (!url) await new Promise((resolve) => setTimeout(resolve, 20));
  console.log(`    progress: ${progress[0]}`);
  // The agent's address carries no key: the page it opens can read or change nothing.
  const refused = await fetch(`${new URL(url).origin}/api/sessions/${encodeURIComponent(key)}`);
  console.log(`    the agent's address alone: HTTP ${refused.status} from the page's API`);
  let failures = refused.status === 403 ? 0 : 1;

  const link = await personsLink(bin, env, key);
  console.log(`    the person runs \`md-review-mcp link ${key}\` in a terminal and opens the link it prints`);
  const person = personAt(link);
  const session = await person('GET', '');
  console.log(
    `    the person opens the page: ${session.files.map((f) => f.file).join(', ')}, status ${session.status}`,
  );
  await person('POST', '/comments', {
    fileIndex: 0,
    startLine: 3,
    endLine: 5,
    severity: 'must',
    comment: 'Say who decides on a rollback and how fast it must be possible.',
  });
  await person('POST', '/global-comments', { comment: 'Add the date of each step.' });
  await person('PUT', '/files/0/reviewed', { reviewed: true });
  await person('POST', '/finalize', { overall_comment: 'Good plan; one gap.' });
  console.log(
    '    the person comments on lines 3–5 (must), adds a global comment, marks the file reviewed, finalizes',
  );

  const result = await call;
  const text = result.content[0].text;
  console.log(`  ← ${(performance.now() - started).toFixed(0)} ms\n${show(text)}`);
  const review = JSON.parse(text);
  if (result.isError || review.verdict !== 'commented' || review.inline_comments[0]?.range.startLine !== 3)
    failures++;

  const listed = await client.callTool({ name: 'review_list', arguments: {} });
  console.log(`\n  → review_list({})\n  ←\n${show(listed.content[0].text)}`);
  if (listed.isError) failures++;
  return failures;
}
