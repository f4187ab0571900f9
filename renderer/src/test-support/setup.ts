import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// findBy* and waitFor wait for what should appear: generously, since the test machines are shared
// (the default is one second). A wait that only ends a hung test; nothing asserts how long it took.
configure({ asyncUtilTimeout: 30_000 });

// Testing Library unmounts after each test only when vitest's globals are on; they are not here.
afterEach(cleanup);
