/**
 * The Mining and Generating categories (Core's rpc/mining.cpp) and estimatesmartfee (Core's
 * rpc/fees.cpp, category Util): block templates for pools (BIP 22/23 getblocktemplate with the
 * Equihash header fields ZIP 301 pools need), block submission, mining statistics,
 * prioritisation, regtest mining and fee estimates. Parameter names and order, results, error
 * codes and messages are Core's; docs/mining.md explains the template to pool operators. Each
 * concern has its module in mining/; this registers them all, over one template source.
 */
import { DEFAULT_LONGPOLL_TIMING, type LongpollTiming } from '../../mining/longpoll.ts';
import { TemplateSource } from '../../mining/template.ts';
import type { ChainContext } from '../context.ts';
import type { RpcRegistry } from '../registry.ts';
import { registerBlockTemplateMethods } from './mining/block-template.ts';
import { registerFeeEstimateMethods } from './mining/fees.ts';
import { registerGeneratingMethods } from './mining/generating.ts';
import { registerMiningInfoMethods } from './mining/info.ts';

export interface MiningRpcOptions {
  /** Long polling intervals (tests shorten them). */
  readonly longpoll?: LongpollTiming;
}

export function registerMiningMethods(registry: RpcRegistry, ctx: ChainContext, options: MiningRpcOptions = {}): void {
  const { chain, mempool } = ctx;
  const templates = new TemplateSource(
    chain,
    mempool,
    {
      maxWeight: ctx.config.options.blockmaxweight,
      minFeeRate: ctx.config.options.blockmintxfee,
      refreshSeconds: ctx.config.options.blocktemplaterefresh,
    },
    ctx.clock.now,
  );
  registerMiningInfoMethods(registry, ctx, templates);
  registerBlockTemplateMethods(registry, ctx, templates, options.longpoll ?? DEFAULT_LONGPOLL_TIMING);
  registerGeneratingMethods(registry, ctx, templates);
  registerFeeEstimateMethods(registry, ctx);
}
