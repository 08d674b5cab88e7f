// Turns in a growing history, counted incrementally (a turn starts at a genuine user prompt): only the
// messages appended since the last count are looked at; a rewritten history is counted again.
import { isTurnStart, type Message } from '../conversation/conversation';

export class TurnCounter {
  private length = 0;
  private turns = 0;
  private first: Message | undefined;

  count(msgs: readonly Message[]): number {
    if (msgs[0] !== this.first || msgs.length < this.length) {
      this.length = 0;
      this.turns = 0;
      this.first = msgs[0];
    }
    for (let i = this.length; i < msgs.length; i++) {
      if (isTurnStart(msgs[i])) this.turns++;
    }
    this.length = msgs.length;
    return this.turns;
  }
}
