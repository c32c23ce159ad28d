// A Vitest sequencer that starts the named files first, in the order given. The workers take files from one queue,
// so a long file picked up last keeps one worker busy while the others have nothing left: started first, the short
// files fill in around them. Vitest's own order is by past durations where it has them, by file size on a fresh
// clone (as in CI). A file not named keeps Vitest's order, after these; a renamed file only loses its place.
import { basename } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export function longestFirst(names: readonly string[]): typeof BaseSequencer {
  return class LongestFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const rank = (file: TestSpecification): number => {
        const place = names.indexOf(basename(file.moduleId, '.test.ts'));
        return place === -1 ? names.length : place;
      };
      // a stable sort: the files not named keep Vitest's order among themselves
      return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
    }
  };
}
