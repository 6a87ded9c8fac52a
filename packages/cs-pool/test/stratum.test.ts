// The stratum suite (stratum-suite.ts) on a pool holding its miners' sockets itself.
import { stratumSuite } from './stratum-suite.ts';

stratumSuite([]);
