/** Every transcript of the example flows, one vitest test each (what `botflow test` runs). */
// It is also the example of docs/testing.md ("From vitest"): the samples test checks that this file runs it.
import { transcriptTests } from '../../src/testing/vitest.ts';

transcriptTests('flows/tests/*.test.yaml', { flows: 'flows' });
