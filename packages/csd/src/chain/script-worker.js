// Worker-thread entry for parallel script verification. Plain JavaScript so that it can register
// the TypeScript loader before importing the checker: workers do not inherit the main thread's.
import { register } from 'tsx/esm/api';

register();
await import('./script-worker-main.ts');
