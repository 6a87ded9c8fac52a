// The stratum suite (stratum-suite.ts) on a pool whose two socket processes hold its miners'
// sockets (-stratumprocesses=2): the same answers, TLS, bans, session resume and shutdown.
import { stratumSuite } from './stratum-suite.ts';

stratumSuite(['-stratumprocesses=2']);
