// Regenerates examples/session.jsonl (a small realistic session used by `npm start` and tests).
import { writeFileSync } from 'node:fs';
import { serializeSplitpointJsonl } from '../src/core/importers';
import { syntheticSession } from '../test/helpers/synthetic';

const messages = syntheticSession({ messages: 60, seed: 7, exchangesPerTurn: 3 }).map((m) => {
  // Keep the example small enough to read: cap tool outputs at 3 KB.
  if (typeof m.content === 'string') return m;
  return {
    ...m,
    content: m.content.map((b) =>
      b.type === 'tool_result' && typeof b.content === 'string' && b.content.length > 3000
        ? { ...b, content: b.content.slice(0, 3000) }
        : b,
    ),
  };
});
writeFileSync('examples/session.jsonl', serializeSplitpointJsonl(messages, { sessionId: 'example', createdAt: 1763856000000 }));
console.log(`examples/session.jsonl: ${messages.length} messages`);
