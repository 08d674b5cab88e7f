// Fuzzy ranking of workspace paths for the composer's @-mention picker. Every query character must
// appear in the path in order (case-insensitive); among matches, the score rewards characters that
// start a path segment or a word (after / . _ - or a camelCase hump), runs of consecutive
// characters, and matches in the file name, and prefers shorter paths. Small and pure (the webview
// bundles it; no dependency): a few thousand paths rank in well under a frame.

export interface RankedPath {
  path: string;
  score: number;
  /** Indexes of the matched characters in `path` (for highlighting). */
  positions: number[];
}

const BOUNDARY = /[/\\._\-\s]/;

/** The best match of `query` in `path` (greedy from each start, best kept), or undefined. */
export function matchPath(query: string, path: string): RankedPath | undefined {
  const q = query.toLowerCase().replace(/\s+/g, '');
  if (q === '') return { path, score: -path.length / 100, positions: [] };
  const lower = path.toLowerCase();
  const nameStart = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1;
  let best: RankedPath | undefined;
  // Try each position of the first character as the start; greedy forward from there.
  for (let start = lower.indexOf(q[0]!); start !== -1; start = lower.indexOf(q[0]!, start + 1)) {
    const positions: number[] = [];
    let score = 0;
    let at = start;
    for (let i = 0; i < q.length; i++) {
      const found = lower.indexOf(q[i]!, at);
      if (found === -1) return best;
      const prev = positions.at(-1);
      score += 1;
      if (prev !== undefined && found === prev + 1) score += 5;
      if (found === 0 || BOUNDARY.test(path[found - 1]!)) score += 8;
      else if (path[found] !== lower[found] && path[found - 1] === lower[found - 1]) score += 6; // camelCase hump
      if (found >= nameStart) score += 2;
      positions.push(found);
      at = found + 1;
    }
    score -= path.length / 100;
    if (!best || score > best.score) best = { path, score, positions };
  }
  return best;
}

/** The `limit` best matches of `query` among `paths`, best first (ties: shorter, then alphabetical). */
export function rankPaths(query: string, paths: readonly string[], limit = 50): RankedPath[] {
  const out: RankedPath[] = [];
  for (const p of paths) {
    const m = matchPath(query, p);
    if (m) out.push(m);
  }
  out.sort((a, b) => b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out.slice(0, limit);
}
