// Worker-thread entry for the coins writer. Plain JavaScript so that it can register the
// TypeScript loader before importing the writer: workers do not inherit the main thread's.
import { register } from 'tsx/esm/api';

register();
await import('./coins-writer-main.ts');
