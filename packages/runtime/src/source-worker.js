// A worker's entry when its starter runs from TypeScript sources (worker.ts): registers tsx, then
// imports the source entry named by the first argument after the script.
import { register } from 'tsx/esm/api';

register();
const entry = process.argv.splice(2, 1)[0];
await import(entry);
