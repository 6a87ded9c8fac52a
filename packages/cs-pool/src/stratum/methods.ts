/**
 * The requests a miner makes, as ZIP 301 and NiceHash's extranonce extension define them:
 * subscribe, authorize, submit, suggest_target and extranonce.subscribe, with the targets, jobs
 * and share counts they change on the connection.
 */
import type { ChainParams } from '@cs/consensus';
import {
  StratumError,
  StratumErrorCode,
  difficultyToTarget,
  encodeError,
  encodeNotification,
  encodeResult,
  notifyParams,
  parseAuthorize,
  parseLogin,
  parseSubmit,
  parseSubscribe,
  passwordDifficulty,
  targetFromHex,
  targetToDifficulty,
  targetToHex,
  openShare,
  settleShare,
  type Job,
  type PendingShare,
  type ShareContext,
  type StratumId,
  type ValidShare,
} from '@cs/stratum';
import { weightOfTarget } from '../accounting/weights.ts';
import type { PoolStats } from '../api/stats.ts';
import { crashArmed, crashPoint } from '../node/crash.ts';
import type { Connection, Login } from './connection.ts';
import type { JobManager } from './jobs.ts';
import type { Nonce1Allocator } from './nonce1.ts';
import type { ShareVerifier } from './verifier.ts';

/** A job's mining.notify line, encoded once for every miner it goes to: bytes for broadcasts, text for a connection's queue. */
export interface NotifyLine {
  readonly bytes: Buffer;
  readonly text: string;
}

export interface MethodsDeps {
  readonly net: ChainParams;
  readonly jobs: JobManager;
  readonly nonces: Nonce1Allocator;
  readonly stats: PoolStats;
  readonly verifier: ShareVerifier;
  /** Is this a valid address of the network? */
  readonly validateAddress: (address: string) => Promise<boolean>;
  /** The output script of a validated address (a solo finder's coinbase output). */
  readonly addressScript: (address: string) => Uint8Array;
  /** Stores a valid share of `login`; resolves once it is durable. */
  readonly storeShare: (login: Login, job: Job, share: ValidShare, difficulty: number, weight: bigint) => Promise<unknown>;
  /** Cuts the connection for abuse (a strike toward its IP's ban). */
  readonly cut: (c: Connection, reason: string) => void;
  /** A login was refused with error 24 (a strike toward its IP's ban). */
  readonly refusedLogin: (c: Connection) => void;
  /** The connection's first authorize fixed its payout: job broadcasts write to it from now on. */
  readonly joined: (c: Connection) => void;
  readonly banCheckThreshold: number;
  readonly banInvalidPercent: number;
  /** How long shares at the previous target are still accepted after a change. */
  readonly targetGraceMs: number;
}

export class StratumMethods {
  /** Each job's two notify lines (clean_jobs false, true), each encoded when first needed: a new block's broadcast waits for one only. */
  private readonly notifyLines = new WeakMap<Job, [NotifyLine | null, NotifyLine | null]>();

  constructor(private readonly deps: MethodsDeps) {}

  /**
   * Answers a request; a rejection is thrown (synchronously, or from the returned promise).
   * Not async: a share would pay for a promise and a resumption it does not need.
   */
  handle(c: Connection, id: StratumId, method: string, params: readonly unknown[]): Promise<void> | undefined {
    switch (method) {
      case 'mining.subscribe':
        this.subscribe(c, id, params);
        return;
      case 'mining.authorize':
        return this.authorize(c, id, params);
      case 'mining.submit':
        return this.submit(c, id, params);
      case 'mining.suggest_target':
        this.suggestTarget(c, id, params);
        return;
      case 'mining.extranonce.subscribe':
        this.extranonceSubscribe(c, id);
        return;
      default:
        throw new StratumError(StratumErrorCode.OTHER, `unsupported method ${method}`);
    }
  }

  private subscribe(c: Connection, id: StratumId, params: readonly unknown[]): void {
    const { sessionId } = parseSubscribe(params);
    if (!c.subscribed) {
      const session = this.deps.nonces.acquire(sessionId, Date.now());
      c.nonce1 = session.nonce1;
      c.sessionId = session.sessionId;
      c.subscribed = true;
    }
    c.send(encodeResult(id, [c.sessionId, Buffer.from(c.nonce1!).toString('hex')]));
  }

  private async authorize(c: Connection, id: StratumId, params: readonly unknown[]): Promise<void> {
    if (!c.subscribed) throw new StratumError(StratumErrorCode.NOT_SUBSCRIBED, 'not subscribed');
    const { login, password } = parseAuthorize(params);
    const parsed = parseLogin(login);
    const solo = parsed.solo || c.port.solo;
    if (!(await this.deps.validateAddress(parsed.address))) {
      c.send(encodeError(id, new StratumError(StratumErrorCode.UNAUTHORIZED, `'${parsed.address}' is not an address of this network`)));
      this.deps.refusedLogin(c);
      return;
    }
    const payout = solo ? parsed.address : '';
    if (c.payout !== null && c.payout !== payout) {
      this.deps.refusedLogin(c);
      throw new StratumError(StratumErrorCode.UNAUTHORIZED, 'every worker of a connection must share its payout (pool, or the same solo address)');
    }
    const first = c.payout === null;
    c.payout = payout;
    if (solo) c.payoutScript = this.deps.addressScript(parsed.address);
    if (first) this.deps.joined(c);
    const stats = this.deps.stats.worker(parsed.address, parsed.worker, Date.now());
    // A login authorized again on the same connection is still one connection of that worker.
    if (!c.logins.has(login)) this.deps.stats.connect(stats);
    c.logins.set(login, { address: parsed.address, worker: parsed.worker, solo, stats });
    const d = passwordDifficulty(password);
    if (d !== null) {
      try {
        c.target = difficultyToTarget(d, this.deps.net.powLimit);
        c.vardiff = null;
        c.staticDifficulty = true;
      } catch {
        // An unreadable d= keeps the port's difficulty; the login itself is fine.
      }
    }
    c.send(encodeResult(id, true));
    if (first || d !== null) {
      c.send(encodeNotification('mining.set_target', [targetToHex(c.target)]));
      this.sendJob(c, true);
    }
  }

  private sendJob(c: Connection, clean: boolean): void {
    const line = this.jobLine(c, clean);
    if (line) c.send(line.text);
  }

  /** The notify line of the connection's current job; null before its first authorize. */
  jobLine(c: Connection, clean: boolean): NotifyLine | null {
    if (c.payout === null) return null;
    return this.notifyLine(this.deps.jobs.jobFor(c.payout === '' ? null : { address: c.payout, script: c.payoutScript! }), clean);
  }

  /** The pool job's notify line: looked up once for all of a broadcast's pool miners. */
  poolJobLine(clean: boolean): NotifyLine {
    return this.notifyLine(this.deps.jobs.jobFor(null), clean);
  }

  private notifyLine(job: Job, clean: boolean): NotifyLine {
    let lines = this.notifyLines.get(job);
    if (!lines) {
      lines = [null, null];
      this.notifyLines.set(job, lines);
    }
    const i = clean ? 1 : 0;
    let line = lines[i];
    if (!line) {
      const text = encodeNotification('mining.notify', notifyParams(job, clean));
      line = lines[i] = { bytes: Buffer.from(text), text };
    }
    return line;
  }

  private submit(c: Connection, id: StratumId, params: readonly unknown[]): Promise<void> {
    const { jobs, stats, net } = this.deps;
    if (!c.subscribed) throw new StratumError(StratumErrorCode.NOT_SUBSCRIBED, 'not subscribed');
    const submit = parseSubmit(params);
    const login = c.logins.get(submit.worker);
    if (!login) throw new StratumError(StratumErrorCode.UNAUTHORIZED, 'unauthorized worker');
    const now = Date.now();
    const live = jobs.lookup(submit.jobId);
    if (!live || live.payout !== c.payout) {
      // Stale is the network's doing, not the miner's: it is counted, never held against the ban.
      stats.share(login.stats, 'stale', 0, now);
      throw new StratumError(StratumErrorCode.JOB_NOT_FOUND, 'job not found');
    }
    const ctx: ShareContext = {
      job: live.job,
      nonce1: c.nonce1!,
      submit,
      target: c.target,
      previousTarget: now < c.previousTargetUntil ? c.previousTarget : null,
      seen: live.seen,
      now: Math.floor(now / 1000),
      maxFutureTime: net.maxFutureBlockTime,
    };
    let share: PendingShare;
    try {
      share = openShare(ctx);
    } catch (e) {
      throw this.rejected(c, login, e, now);
    }
    const verdict = this.deps.verifier.check(share);
    if (typeof verdict === 'boolean') return this.settle(c, id, login, ctx, share, verdict, now);
    return verdict.then((ok) => this.settle(c, id, login, ctx, share, ok, now));
  }

  /** The share judged on its solution's verdict (on this thread or another: the same steps), then stored. */
  private settle(
    c: Connection,
    id: StratumId,
    login: Login,
    ctx: ShareContext,
    pending: PendingShare,
    solutionOk: boolean,
    now: number,
  ): Promise<void> {
    const { net } = this.deps;
    let share: ValidShare;
    try {
      share = settleShare(ctx, pending, solutionOk);
    } catch (e) {
      throw this.rejected(c, login, e, now);
    }
    // Counted for the invalid-share cut-off when judged, as refusals are, not once stored: pipelined
    // shares are judged long before their group commit, and the refusals among them would
    // otherwise be measured against none of the valid ones.
    c.valid++;
    if (c.worth.target !== share.target) {
      c.worth = {
        target: share.target,
        difficulty: targetToDifficulty(share.target, net.powLimit),
        weight: weightOfTarget(share.target, net.powLimit),
      };
    }
    const { difficulty, weight } = c.worth;
    const stored = this.deps.storeShare(login, ctx.job, share, difficulty, weight);
    return stored.then(() => this.accepted(c, id, login, difficulty, now));
  }

  /** A share refused by validation: counted by outcome and toward the invalid-share cut-off; the error to throw. */
  private rejected(c: Connection, login: Login, e: unknown, now: number): unknown {
    if (e instanceof StratumError) {
      const outcome = e.code === StratumErrorCode.DUPLICATE_SHARE ? 'duplicate' : e.code === StratumErrorCode.LOW_DIFFICULTY ? 'low' : 'invalid';
      this.deps.stats.share(login.stats, outcome, 0, now);
      this.countInvalid(c);
    }
    return e;
  }

  /** A valid share is durable: counted, acknowledged, and vardiff hears of it. */
  private accepted(c: Connection, id: StratumId, login: Login, difficulty: number, now: number): void {
    c.lastValidShare = now;
    this.deps.stats.share(login.stats, 'valid', difficulty, now);
    c.send(encodeResult(id, true));
    // After the uncork queued by this turn's first reply, so the acknowledgement has left.
    if (crashArmed('after-share-ack')) process.nextTick(crashPoint, 'after-share-ack');
    const next = c.vardiff?.onShare(now / 1000, c.target) ?? null;
    if (next !== null) this.setTarget(c, next);
  }

  private countInvalid(c: Connection): void {
    c.invalid++;
    const total = c.valid + c.invalid;
    if (total >= this.deps.banCheckThreshold) {
      if ((c.invalid * 100) / total >= this.deps.banInvalidPercent) this.deps.cut(c, `${c.invalid} of ${total} shares invalid`);
      c.valid = 0;
      c.invalid = 0;
    }
  }

  /** A new target: announced, then the current job again so that miners apply it; the old one stays good for a grace period. */
  setTarget(c: Connection, target: bigint): void {
    c.previousTarget = c.target;
    c.previousTargetUntil = Date.now() + this.deps.targetGraceMs;
    c.target = target;
    c.send(encodeNotification('mining.set_target', [targetToHex(target)]));
    this.sendJob(c, false);
  }

  /** ZIP 301: answered with set_target. Harder than the port's start is granted; easier is refused (error 20), as in miningcore. */
  private suggestTarget(c: Connection, id: StratumId, params: readonly unknown[]): void {
    let target: bigint;
    try {
      target = targetFromHex(String(params[0]));
    } catch {
      throw new StratumError(StratumErrorCode.OTHER, 'the suggested target is 64 hex digits');
    }
    const portTarget = difficultyToTarget(c.port.difficulty, this.deps.net.powLimit);
    if (target > portTarget) throw new StratumError(StratumErrorCode.OTHER, 'suggested difficulty too low for this port');
    c.send(encodeResult(id, true));
    this.setTarget(c, target);
  }

  /**
   * NiceHash's extension: acknowledged, then a fresh NONCE_1 with mining.set_extranonce and a clean
   * job, which the miner must switch to at once. Rotating it here also frees the resumed session's
   * NONCE_1 for reuse rules: the new one is the connection's from now on.
   */
  private extranonceSubscribe(c: Connection, id: StratumId): void {
    if (!c.subscribed) throw new StratumError(StratumErrorCode.NOT_SUBSCRIBED, 'not subscribed');
    c.extranonce = true;
    c.send(encodeResult(id, true));
    const session = this.deps.nonces.rotate(c.sessionId!, Date.now());
    c.nonce1 = session.nonce1;
    c.sessionId = session.sessionId;
    c.send(encodeNotification('mining.set_extranonce', [Buffer.from(c.nonce1).toString('hex'), 32 - c.nonce1.length]));
    this.sendJob(c, true);
  }
}
