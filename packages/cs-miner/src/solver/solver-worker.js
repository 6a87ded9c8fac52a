// Worker-thread entry for the Equihash solver. Plain JavaScript so that it can register the
// TypeScript loader before importing the solver loop: workers do not inherit the main thread's.
import { register } from 'tsx/esm/api';

register();
await import('./solver-worker-main.ts');
