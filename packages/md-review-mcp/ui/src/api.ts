// The page's side of the JSON API. The token comes from the URL fragment (never sent as part of a URL)
// and travels as a bearer token; every edit is JSON, which the server insists on.

export type Severity = 'must' | 'should' | 'suggestion' | 'question';
export const SEVERITIES: Severity[] = ['must', 'should', 'suggestion', 'question'];

export interface InlineComment {
  id: string;
  fileIndex: number;
  file: string;
  range: { startLine: number; endLine: number };
  comment: string;
  severity: Severity;
  createdAt: string;
  updatedAt?: string;
  anchor: { fileContentHash: string; rangeTextHash: string; preview: string };
  /** The round it was written in (absent: round 1). */
  round?: number;
}

export interface GlobalComment {
  id: string;
  comment: string;
  createdAt: string;
  /** The round it was written in (absent: round 1). */
  round?: number;
}

export interface SessionView {
  resume_key: string;
  title: string;
  instructions?: string;
  status: 'open' | 'finalized' | 'cancelled';
  verdict?: 'approved' | 'commented' | 'cancelled';
  revision: number;
  round: number;
  waiting: boolean;
  files: Array<{ index: number; file: string; reviewed: boolean }>;
  inline_comments: InlineComment[];
  global_comments: GlobalComment[];
  overall_comment?: string;
  /** This round's comments; from round 2 on, those kept from earlier rounds are counted apart. */
  summary: {
    comment_count: number;
    inline_comment_count: number;
    global_comment_count: number;
    earlier_comment_count?: number;
  };
}

export interface Placement {
  id: string;
  /** current: at its range; moved: its lines are elsewhere now (range); lost: its lines changed (stale). */
  state: 'current' | 'moved' | 'lost';
  range: { startLine: number; endLine: number };
}

export interface FileView {
  index: number;
  file: string;
  text: string;
  fileContentHash: string;
  lineCount: number;
  /** Another round: the text reviewed last round, when the file changed since. */
  previous?: string;
  placements: Placement[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class Api {
  constructor(
    readonly key: string,
    private readonly token: string,
  ) {}

  /** Reads the session key from the path and the token from the fragment of the page's URL. */
  static fromLocation(location: Location): Api | undefined {
    const match = /^\/review\/([^/]+)$/.exec(location.pathname);
    const token = new URLSearchParams(location.hash.slice(1)).get('token');
    return match && token ? new Api(decodeURIComponent(match[1]!), token) : undefined;
  }

  private async call<T>(method: string, rest: string, body?: unknown): Promise<T> {
    const response = await fetch(`/api/sessions/${encodeURIComponent(this.key)}${rest}`, {
      method,
      headers: { Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/json' },
      ...(method === 'GET' ? {} : { body: JSON.stringify(body ?? {}) }),
      cache: 'no-store',
    });
    const value = (await response.json().catch(() => ({}))) as { error?: { code: string; message: string } };
    if (!response.ok) {
      throw new ApiError(
        response.status,
        value.error?.code ?? 'HTTP',
        value.error?.message ?? `HTTP ${response.status}`,
      );
    }
    return value as T;
  }

  session = () => this.call<SessionView>('GET', '');
  file = (index: number) => this.call<FileView>('GET', `/files/${index}`);

  private mutate = (method: string, rest: string, body?: unknown) =>
    this.call<{ session: SessionView }>(method, rest, body).then((r) => r.session);

  addComment = (input: {
    fileIndex: number;
    startLine: number;
    endLine: number;
    comment: string;
    severity: Severity;
    fileContentHash: string;
  }) => this.mutate('POST', '/comments', input);
  updateComment = (id: string, patch: { comment?: string; severity?: Severity }) =>
    this.mutate('PATCH', `/comments/${encodeURIComponent(id)}`, patch);
  deleteComment = (id: string) => this.mutate('DELETE', `/comments/${encodeURIComponent(id)}`);
  addGlobal = (comment: string) => this.mutate('POST', '/global-comments', { comment });
  updateGlobal = (id: string, comment: string) =>
    this.mutate('PATCH', `/global-comments/${encodeURIComponent(id)}`, { comment });
  deleteGlobal = (id: string) => this.mutate('DELETE', `/global-comments/${encodeURIComponent(id)}`);
  setOverall = (comment: string) => this.mutate('PUT', '/overall', { comment });
  setReviewed = (index: number, reviewed: boolean) =>
    this.mutate('PUT', `/files/${index}/reviewed`, { reviewed });
  /** The hash of file `index` on disk now (to notice it changed under the page). */
  fileHash = (index: number) =>
    this.call<{ index: number; fileContentHash: string }>('GET', `/files/${index}/hash`);
  /** `seen`: each file as the page showed it, so the server refuses to finalize a file rewritten since. */
  finalize = (seen: Array<{ fileIndex: number; fileContentHash: string }>) =>
    this.mutate('POST', '/finalize', { seen });
  cancel = () => this.mutate('POST', '/cancel');
}
