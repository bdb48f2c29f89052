import { ToolError } from '@mcp-workbench/core/engine';
import type { ReviewHub, SeenFile } from '../review/hub.js';
import type { Severity } from '../review/types.js';

/** A parsed API call: the session key is checked against its token before `handle` runs. */
export interface ApiCall {
  method: string;
  /** Path segments after /api/sessions/<key>/. */
  rest: string[];
  body: Record<string, unknown>;
}

const str = (body: Record<string, unknown>, name: string): string => {
  const value = body[name];
  if (typeof value !== 'string') throw new ToolError('INVALID_ARGUMENT', `"${name}" must be a string.`);
  return value;
};
const optStr = (body: Record<string, unknown>, name: string): string | undefined =>
  body[name] === undefined ? undefined : str(body, name);
const int = (body: Record<string, unknown>, name: string): number => {
  const value = body[name];
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new ToolError('INVALID_ARGUMENT', `"${name}" must be an integer.`);
  }
  return value;
};
const index = (segment: string | undefined): number => {
  if (segment === undefined || !/^\d{1,4}$/.test(segment))
    throw new ToolError('NOT_FOUND', 'No such file in this review.');
  return Number(segment);
};

/** `seen`: [{ fileIndex, fileContentHash }] — the files as the page showed them (optional). */
const seenFiles = (body: Record<string, unknown>): SeenFile[] | undefined => {
  const seen = body.seen;
  if (seen === undefined) return undefined;
  if (!Array.isArray(seen)) throw new ToolError('INVALID_ARGUMENT', '"seen" must be an array.');
  return seen.map((entry: unknown) => {
    const item = (entry ?? {}) as Record<string, unknown>;
    return { fileIndex: int(item, 'fileIndex'), fileContentHash: str(item, 'fileContentHash') };
  });
};

/**
 * The page's JSON API over the hub. Every route names a session's file by its index, never by path, so
 * no request can reach a file that is not part of the review. Mutations answer with the whole session
 * view, so the page needs one round trip per action.
 */
export async function handleApi(hub: ReviewHub, key: string, call: ApiCall): Promise<unknown> {
  const { method, rest, body } = call;
  const route = `${method} ${rest.map((part, i) => (i === 1 ? ':id' : part)).join('/')}`;
  const after = async (value?: unknown) => ({
    ...(value === undefined ? {} : { value }),
    session: hub.view(key),
  });
  switch (route) {
    case 'GET ':
      return hub.view(key);
    case 'GET files/:id':
      return hub.file(key, index(rest[1]));
    case 'PUT files/:id/reviewed':
      await hub.setReviewed(key, index(rest[1]), body.reviewed === true);
      return after();
    case 'POST comments':
      return after(
        await hub.addInline(key, {
          fileIndex: int(body, 'fileIndex'),
          startLine: int(body, 'startLine'),
          endLine: int(body, 'endLine'),
          comment: str(body, 'comment'),
          severity: str(body, 'severity') as Severity,
          ...(body.fileContentHash === undefined ? {} : { fileContentHash: str(body, 'fileContentHash') }),
        }),
      );
    case 'PATCH comments/:id': {
      const comment = optStr(body, 'comment');
      const severity = optStr(body, 'severity') as Severity | undefined;
      return after(
        await hub.updateInline(key, rest[1]!, {
          ...(comment === undefined ? {} : { comment }),
          ...(severity === undefined ? {} : { severity }),
        }),
      );
    }
    case 'DELETE comments/:id':
      await hub.deleteInline(key, rest[1]!);
      return after();
    case 'POST global-comments':
      return after(await hub.addGlobal(key, str(body, 'comment')));
    case 'PATCH global-comments/:id':
      return after(await hub.updateGlobal(key, rest[1]!, str(body, 'comment')));
    case 'DELETE global-comments/:id':
      await hub.deleteGlobal(key, rest[1]!);
      return after();
    case 'PUT overall':
      await hub.setOverall(key, str(body, 'comment'));
      return after();
    case 'GET files/:id/hash':
      return hub.fileHash(key, index(rest[1]));
    case 'POST finalize':
      await hub.finalize(key, optStr(body, 'overall_comment'), seenFiles(body));
      return after();
    case 'POST cancel':
      await hub.cancel(key);
      return after();
    case 'POST handover': // another md-review process takes the session (see ownership.ts)
      await hub.handOver(key);
      return { released: true };
    default:
      throw new ToolError('NOT_FOUND', `No API route ${method} /${rest.join('/')}.`);
  }
}

const STATUS: Record<string, number> = {
  INVALID_ARGUMENT: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  LIMIT_EXCEEDED: 413,
  PATH_OUTSIDE_ROOT: 403,
  PATH_DENIED: 403,
  PERMISSION_DENIED: 403,
};

export function httpStatusOf(error: ToolError): number {
  return STATUS[error.code] ?? 500;
}
