// A memoizing wrapper (like preact/compat's memo, without pulling in compat's global option hooks):
// the wrapped component re-renders only when a prop changed identity.
import { Component, h, type FunctionComponent } from 'preact';

export function memo<P extends object>(fn: FunctionComponent<P>): FunctionComponent<P> {
  class Memo extends Component<P> {
    override shouldComponentUpdate(next: P): boolean {
      return !shallowEqual(this.props as Record<string, unknown>, next as Record<string, unknown>);
    }
    override render() {
      return h(fn, this.props);
    }
  }
  (Memo as unknown as { displayName: string }).displayName = `Memo(${fn.displayName ?? fn.name})`;
  return Memo as unknown as FunctionComponent<P>;
}

function shallowEqual(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  for (const k in a) if (k !== 'children' && a[k] !== b[k]) return false;
  for (const k in b) if (k !== 'children' && !(k in a)) return false;
  return true;
}
