/** Every transcript of the example flows, one vitest test each (what `botflow test` runs). */
import { transcriptTests } from '../../src/testing/vitest.ts';

transcriptTests('flows/tests/*.test.yaml', { flows: 'flows' });
