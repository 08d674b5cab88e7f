// The one error a user sees before anything is sent: no API key is stored yet.
import { SplitpointError } from '../../core';

export class MissingApiKeyError extends SplitpointError {
  constructor() {
    super('No Anthropic API key is set. Run "Splitpoint: Set API Key" to add one (it is kept in VS Code\'s secret storage).');
    this.name = 'MissingApiKeyError';
  }
}
