// The read-only documents of file review, as URIs (no vscode import: tested in Node).
//   splitpoint-proposal:/<toolUseId>/<path>            the content an edit proposes
//   splitpoint-proposal:/<toolUseId>/<path>?before     empty: the left side for a file that does not exist yet
//   splitpoint-checkpoint:/<promptId>/<path>           a file as it was before a prompt (empty if it did not exist)
//   splitpoint-checkpoint:/<promptId>/<path>?now       empty: the left side for a file that no longer exists
export const PROPOSAL_SCHEME = 'splitpoint-proposal';
export const CHECKPOINT_SCHEME = 'splitpoint-checkpoint';

export interface ReviewUriParts {
  /** The tool_use id (proposal) or the prompt's message id (checkpoint). */
  id: string;
  path: string;
  /** The empty side (a file that does not exist on that side). */
  empty: boolean;
}

/** The path part of a review URI: `/<id>/<path>`, each segment of the id encoded. */
export function reviewPath(id: string, path: string): string {
  return `/${encodeURIComponent(id)}/${path}`;
}

/** Parse a review URI's path and query; null when it is not one. */
export function parseReviewPath(uriPath: string, query: string): ReviewUriParts | null {
  const m = /^\/([^/]+)\/(.+)$/.exec(uriPath);
  if (!m) return null;
  let id: string;
  try {
    id = decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
  return { id, path: m[2]!, empty: query === 'before' || query === 'now' };
}
