// Strategy parameter errors: every bad parameter is named with the strategy and what was wrong.
export class StrategyParamError extends Error {
  constructor(
    readonly strategy: string,
    readonly param: string,
    detail: string,
  ) {
    super(`${strategy}: parameter ${param} ${detail}`);
    this.name = 'StrategyParamError';
  }
}
