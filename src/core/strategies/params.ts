// Strategy parameter errors: every bad parameter is named with the strategy and what was wrong.
import { SplitpointError } from '../base/errors';
export class StrategyParamError extends SplitpointError {
  constructor(
    readonly strategy: string,
    readonly param: string,
    detail: string,
  ) {
    super(`${strategy}: parameter ${param} ${detail}`);
    this.name = 'StrategyParamError';
  }
}
