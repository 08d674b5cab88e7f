// Counting an agent's recorded compactions without parsing the file: the one full read discovery does.
// The markers are searched in the raw bytes, chunk by chunk: Claude Code's `"subtype":"compact_boundary"`
// and Codex's `"type":"compacted"`, as the agents write them (compact JSON). A marker quoted inside a JSON
// string reads `\"subtype\":\"compact_boundary\"`, so text that merely mentions one is not counted.
//
// Each count is cached per file with its size, mtime and inode. A file that only grew (same inode, larger)
// is scanned from where the last scan ended: agents append, so a refresh reads only the new bytes. A file
// that shrank, was replaced (new inode) or changed without growing is scanned again from the start.
import { open } from 'node:fs/promises';

export const CLAUDE_CODE_COMPACTION_MARKER = '"subtype":"compact_boundary"';
export const CODEX_COMPACTION_MARKER = '"type":"compacted"';

/** Bytes read per chunk. */
const CHUNK_BYTES = 1 << 20;

interface ScanState {
  marker: string;
  size: number;
  mtimeMs: number;
  ino: number;
  count: number;
}

export interface FileIdentity {
  size: number;
  mtimeMs: number;
  ino: number;
}

/** Compaction counts by file, continued from the last scanned offset when a file only grew. */
export class CompactionScanCache {
  private readonly states = new Map<string, ScanState>();
  /** Bytes read by scans (the cost of a refresh; tests and the bench read it). */
  bytesRead = 0;

  /** The number of `marker`s in `file` as it is now (`stat` its identity: size, mtime, inode). */
  async count(file: string, marker: string, stat: FileIdentity): Promise<number> {
    const known = this.states.get(file);
    if (known && known.marker === marker && known.ino === stat.ino) {
      if (known.size === stat.size && known.mtimeMs === stat.mtimeMs) return known.count;
      if (stat.size > known.size) {
        const more = await this.scan(file, marker, known.size, stat.size);
        const state = { ...known, size: stat.size, mtimeMs: stat.mtimeMs, count: known.count + more };
        this.states.set(file, state);
        return state.count;
      }
    }
    const count = await this.scan(file, marker, 0, stat.size);
    this.states.set(file, { marker, size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, count });
    return count;
  }

  /** Forget files not in `keep` (called after a discovery with the files it listed). */
  prune(keep: ReadonlySet<string>): void {
    for (const f of this.states.keys()) if (!keep.has(f)) this.states.delete(f);
  }

  /** Markers whose last byte lies in [from, to): reading starts marker.length - 1 bytes before `from`. */
  private async scan(file: string, marker: string, from: number, to: number): Promise<number> {
    const needle = Buffer.from(marker, 'utf8');
    const handle = await open(file, 'r');
    try {
      let count = 0;
      let pos = Math.max(0, from - (needle.length - 1));
      const buf = Buffer.allocUnsafe(CHUNK_BYTES + needle.length);
      let carry = 0;
      while (pos < to) {
        const want = Math.min(CHUNK_BYTES, to - pos);
        const { bytesRead } = await handle.read(buf, carry, want, pos);
        if (bytesRead === 0) break;
        this.bytesRead += bytesRead;
        const end = carry + bytesRead;
        // Absolute offset of buf[0].
        const base = pos - carry;
        const view = buf.subarray(0, end);
        for (let i = view.indexOf(needle); i !== -1; i = view.indexOf(needle, i + 1)) {
          if (base + i + needle.length > from) count++;
        }
        pos += bytesRead;
        carry = Math.min(needle.length - 1, end);
        buf.copy(buf, 0, end - carry, end);
      }
      return count;
    } finally {
      await handle.close();
    }
  }
}

/** The cache discovery uses when its caller gives none (one per process). */
export const defaultCompactionScanCache = new CompactionScanCache();
