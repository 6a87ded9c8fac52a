/**
 * The method table (Core's CRPCTable): every RPC method with its category, parameter spec, help
 * text and handler. Modules register their methods here; the HTTP layer only calls `call()`.
 * Nothing here knows about the chain.
 */
import { MetricsRegistry } from '@cs/runtime/metrics';
import { AmountError } from '@cs/runtime/amount';
import { RpcError, RpcErrorCode } from './errors.ts';
import { fullHelp, helpIndex, type RpcExample } from './help.ts';
import type { JsonObject, JsonValue } from '../format/json-value.ts';
import { CallMetrics, type MethodSeries, UNKNOWN_METHOD } from './metrics.ts';
import { compileParams, resolveArgs, type ArgValue, type ArgsOf, type CompiledParams, type ParamSpec } from './params.ts';
import { Warmup } from './warmup.ts';

/** The `== Category ==` headings of `help`, as Core names them (plus Opoi, our own). */
export type RpcCategory = 'Blockchain' | 'Control' | 'Generating' | 'Mining' | 'Network' | 'Opoi' | 'Rawtransactions' | 'Util' | 'Wallet' | 'Zmq';

/** What a handler learns about the HTTP request that carried its call. */
export interface RpcCallContext {
  /** The request path: `/`, or `/wallet/<url-encoded name>` for wallet-scoped calls. */
  readonly uri: string;
  /** The client's address. */
  readonly peer: string;
}

export interface RpcMethodDefinition<P extends readonly ParamSpec[]> {
  readonly name: string;
  readonly category: RpcCategory;
  readonly description: string;
  readonly params: P;
  readonly result: string;
  readonly examples: readonly RpcExample[];
  /** Whether the method answers before the node is ready (Core answers nothing during warmup; we let control methods through). */
  readonly allowedInWarmup?: boolean;
  /**
   * Receives the validated arguments by position: amounts as bigint base units, omitted optional
   * arguments as their default (or undefined). Throw RpcError for a client-visible failure; any
   * other exception becomes RPC_MISC_ERROR with its message.
   */
  readonly handler: (args: ArgsOf<P>, ctx: RpcCallContext) => Promise<JsonValue>;
}

/** A registered method as help presents it: its definition without the handler, and its full help text. */
export type RpcMethodDescription = Omit<RpcMethodDefinition<readonly ParamSpec[]>, 'handler'> & { readonly help: string };

interface MethodEntry {
  readonly definition: Omit<RpcMethodDefinition<readonly ParamSpec[]>, 'handler'>;
  readonly params: CompiledParams;
  readonly help: string;
  readonly series: MethodSeries;
  readonly run: (args: readonly ArgValue[], ctx: RpcCallContext) => Promise<JsonValue>;
}

/** A call in progress, as getrpcinfo lists it. */
export interface ActiveCommand {
  readonly method: string;
  /** Microseconds since the call started, as Core reports it. */
  readonly duration: number;
}

interface Running {
  readonly method: string;
  readonly started: number;
}

const METHOD_NAME = /^[a-z][a-z0-9_]*$/;

export class RpcRegistry {
  readonly warmup: Warmup;
  /** Where calls are counted and timed; the HTTP server serves it on /metrics unless given another. */
  readonly metrics: MetricsRegistry;
  readonly #callMetrics: CallMetrics;
  readonly #unknownMethod: MethodSeries;
  readonly #methods = new Map<string, MethodEntry>();
  readonly #running = new Set<Running>();
  readonly #stopping = new AbortController();

  constructor(warmup: Warmup = new Warmup(), metrics: MetricsRegistry = new MetricsRegistry()) {
    this.warmup = warmup;
    this.metrics = metrics;
    this.#callMetrics = new CallMetrics(metrics);
    this.#unknownMethod = this.#callMetrics.forMethod(UNKNOWN_METHOD);
  }

  /**
   * Aborted once the RPC server stops (Core's IsRPCRunning turning false): calls that wait or
   * work for long (long polls, generating blocks, rescans) end early instead of holding up the
   * shutdown.
   */
  get stopping(): AbortSignal {
    return this.#stopping.signal;
  }

  /** Tells long calls in progress to end; the server does this first when it closes. */
  interrupt(): void {
    this.#stopping.abort();
  }

  /**
   * Adds a method. Declare `params` inline or `as const` so the handler's argument types follow
   * from it. Throws if the name is taken or the help would be incomplete: every method documents
   * itself, its parameters, its result, and shows at least one example.
   */
  register<const P extends readonly ParamSpec[]>(definition: RpcMethodDefinition<P>): void {
    const { name } = definition;
    if (!METHOD_NAME.test(name)) throw new Error(`RPC method name "${name}" must be lower-case`);
    if (this.#methods.has(name)) throw new Error(`RPC method ${name} registered twice`);
    if (definition.description.trim() === '') throw new Error(`${name}: help needs a description`);
    if (definition.result.trim() === '') throw new Error(`${name}: help needs a result description`);
    if (definition.examples.length === 0) throw new Error(`${name}: help needs at least one example`);
    const params = compileParams(name, definition.params);
    this.#methods.set(name, {
      definition,
      params,
      help: fullHelp(definition),
      series: this.#callMetrics.forMethod(name),
      // resolveArgs built `args` from this very spec, so it has the shape ArgsOf<P> describes.
      run: (args, ctx) => definition.handler(args as ArgsOf<P>, ctx),
    });
  }

  /** `help` with no command: the index by category; with one: its full text, as Core words both. */
  help(command?: string): string {
    if (command === undefined) return helpIndex([...this.#methods.values()].map((m) => m.definition));
    return this.#methods.get(command)?.help ?? `help: unknown command: ${command}`;
  }

  /** Every method's definition without its handler, in name order: what docs/api/rpc-methods.json is generated from. */
  describe(): RpcMethodDescription[] {
    return [...this.#methods.values()]
      .map(({ definition: d, help }) => ({
        name: d.name,
        category: d.category,
        description: d.description,
        params: d.params,
        result: d.result,
        examples: d.examples,
        allowedInWarmup: d.allowedInWarmup,
        help,
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  activeCommands(): ActiveCommand[] {
    const now = performance.now();
    return [...this.#running].map((r) => ({ method: r.method, duration: Math.floor((now - r.started) * 1000) }));
  }

  /**
   * Runs one call: warmup gate, lookup, argument checks, handler; counts and times it. Failures
   * are thrown as they come (RpcError for the expected ones); turning them into replies is the
   * caller's job.
   */
  async call(method: string, params: readonly JsonValue[] | JsonObject, ctx: RpcCallContext): Promise<JsonValue> {
    const running: Running = { method, started: performance.now() };
    const entry = this.#methods.get(method);
    const series = entry === undefined ? this.#unknownMethod : entry.series;
    this.#running.add(running);
    try {
      const warmupStatus = this.warmup.status;
      if (warmupStatus !== null && entry?.definition.allowedInWarmup !== true) {
        throw new RpcError(RpcErrorCode.IN_WARMUP, warmupStatus);
      }
      if (entry === undefined) throw new RpcError(RpcErrorCode.METHOD_NOT_FOUND, 'Method not found');
      const result = await entry.run(resolveArgs(entry.params, params, entry.help), ctx);
      series.record(true, running.started);
      return result;
    } catch (e) {
      series.record(false, running.started);
      // Amount parsing is shared with programs that know nothing of RPC; Core answers a bad amount
      // with RPC_TYPE_ERROR and the same message.
      throw e instanceof AmountError ? new RpcError(RpcErrorCode.TYPE_ERROR, e.message) : e;
    } finally {
      this.#running.delete(running);
    }
  }
}
