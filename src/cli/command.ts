/** What every `botflow` subcommand is: the contract between `src/cli.ts` and the commands beside this file. */

/** A subcommand: `run` gets the arguments after its name and returns the exit code. */
export interface Command {
  summary: string;
  run(args: string[]): Promise<number>;
  /**
   * Its long options without `--` (`help` is implied). When given, `main` refuses any other `--option`
   * with a "did you mean" before the command runs.
   */
  options?: readonly string[];
}

/** The options that choose the database and the configuration file, as `loadConfig`'s argv. */
export function databaseArgv(values: { db?: string; 'database-url'?: string; config?: string }): string[] {
  return [
    ...(values.db ? ['--db', values.db] : []),
    ...(values['database-url'] ? ['--database-url', values['database-url']] : []),
    ...(values.config ? ['--config', values.config] : []),
  ];
}
