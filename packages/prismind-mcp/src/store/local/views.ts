import path from 'node:path';
import { catalogView, progressView, summaryPhaseTask, summaryView } from '../../model/views.js';
import { LocalCatalog } from './catalog.js';
import { PROJECTS_DIR, type LocalContext, type ViewKind } from './context.js';
import { LocalProjects } from './projects.js';
import { LocalSessions } from './sessions.js';
import { LocalTracker } from './tracker.js';

/** Regenerates the dirty views of every touched project inside the write transaction (before COMMIT). */
export async function stageViews(ctx: LocalContext): Promise<void> {
  const projects = new LocalProjects(ctx);
  for (const [key, kinds] of ctx.dirty) {
    const project = await projects.get(key);
    if (!project) continue; // a deleted project's views stay as they were
    const folder = (
      ctx.db.prepare('SELECT folder FROM projects WHERE project_id = ?').get(key) as { folder: string }
    ).folder;
    // The views are written into the project's folder: a link there is refused, never written through.
    ctx.store.ensureDir(path.posix.join(PROJECTS_DIR, folder), ctx.checkedDirs);
    const dir = path.join(ctx.store.root, PROJECTS_DIR, folder);
    const tasks = await new LocalTracker(ctx).list(project.project_id);
    const catalog = new LocalCatalog(ctx);
    const want = (kind: ViewKind) => kinds.has(kind);
    if (want('progress')) ctx.files.stage(path.join(dir, '進捗.md'), progressView(project, tasks), false);
    if (want('catalog')) {
      const entries = await catalog.list({ project: project.project_id, status: 'all' });
      ctx.files.stage(path.join(dir, '目録.md'), catalogView(project, entries), false);
    }
    const current = summaryPhaseTask(tasks);
    const related = current
      ? await catalog.list({ project: project.project_id, phase_task: current, status: 'active' })
      : [];
    const session = await new LocalSessions(ctx).latest(project.project_id);
    ctx.files.stage(path.join(dir, 'サマリ.md'), summaryView(project, tasks, session, related), false);
  }
  ctx.dirty.clear();
}
