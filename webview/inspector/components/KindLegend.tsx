// The key to the timeline's colours and split markers.
import { KIND_LABEL, KIND_ORDER } from '../kinds';

export function KindLegend() {
  return (
    <ul class="legend kind-legend" aria-label="Message kinds">
      {KIND_ORDER.map((k) => (
        <li key={k}>
          <span class={`legend-swatch kind-${k}`} aria-hidden="true" />
          {KIND_LABEL[k]}
        </li>
      ))}
      <li>
        <span class="legend-marker legend-split-current" aria-hidden="true" />
        split (current)
      </li>
      <li>
        <span class="legend-marker legend-split-preview" aria-hidden="true" />
        split (preview)
      </li>
    </ul>
  );
}
