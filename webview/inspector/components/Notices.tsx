// What the host told the user (info and errors), each dismissable.
import { useStore } from '../context';
import type { Notice } from '../state';

export function Notices({ notices }: { notices: readonly Notice[] }) {
  const store = useStore();
  if (notices.length === 0) return null;
  return (
    <div class="notices">
      {notices.map((n) => (
        <div key={n.id} class={`notice notice-${n.level}`} role={n.level === 'error' ? 'alert' : 'status'}>
          <span>{n.message}</span>
          <button type="button" class="icon" aria-label="Dismiss" onClick={() => store.dismissNotice(n.id)}>
            ✕
          </button>
        </div>
      ))}
    </div>
  );
}
