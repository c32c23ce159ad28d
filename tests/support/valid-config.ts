// A config through the validation the build uses (schema, then the compiled expressions), for tests that need a
// valid config and its compiled forms; a refused config fails the test with its problems.
import { formatProblem } from '../../config/errors.ts';
import { validateConfig, type ValidatedConfig } from '../../config/validate-config.ts';

export function validConfig(input: unknown): ValidatedConfig {
  const result = validateConfig(input);
  if (!result.ok) throw new Error(result.problems.map((problem) => formatProblem('config', problem)).join('\n'));
  return result;
}
