/** estimatesmartfee, as Core's rpc/fees.cpp (category Util). */
import { MAX_CONF_TARGET, parseEstimateMode } from '../../../fees/estimator.ts';
import { feeRateToCoins } from '../../../policy/feerate.ts';
import type { ChainContext } from '../../context.ts';
import { RpcError, RpcErrorCode } from '../../errors.ts';
import type { RpcRegistry } from '../../registry.ts';

export function registerFeeEstimateMethods(registry: RpcRegistry, ctx: ChainContext): void {
  const { mempool } = ctx;

  registry.register({
    name: 'estimatesmartfee',
    category: 'Util',
    description: [
      'Estimates the approximate fee per kilobyte needed for a transaction to begin',
      'confirmation within conf_target blocks if possible and return the number of blocks',
      'for which the estimate is valid. Uses virtual transaction size as defined',
      'in BIP 141 (witness data is discounted).',
    ].join('\n'),
    params: [
      { name: 'conf_target', type: 'integer', description: `Confirmation target in blocks (1 - ${MAX_CONF_TARGET})` },
      {
        name: 'estimate_mode',
        type: 'string',
        default: 'economical',
        description: [
          'The fee estimate mode.',
          'unset, economical, conservative',
          'unset means no mode set (default mode will be used).',
          'economical estimates use a shorter time horizon, making them more',
          'responsive to short-term drops in the prevailing fee market. This mode',
          'potentially returns a lower fee rate estimate.',
          'conservative estimates use a longer time horizon, making them',
          'less responsive to short-term drops in the prevailing fee market. This mode',
          'potentially returns a higher fee rate estimate.',
        ].join('\n'),
      },
    ],
    result: [
      '{                   (json object)',
      '  "feerate" : n,    (numeric, optional) estimate fee rate in coins/kvB (only present if no errors were encountered)',
      '  "errors" : [      (json array, optional) Errors encountered during processing (if there are any)',
      '    "str",          (string) error',
      '    ...',
      '  ],',
      '  "blocks" : n      (numeric) block number where estimate was found',
      '                    The request target will be clamped between 2 and the highest target',
      '                    fee estimation is able to return based on how long it has been running.',
      '                    An error is returned if not enough transactions and blocks',
      '                    have been observed to make an estimate for any number of blocks.',
      '}',
    ].join('\n'),
    examples: [{ args: [6] }],
    handler: async ([confTarget, estimateMode]) => {
      if (confTarget < 1 || confTarget > MAX_CONF_TARGET) {
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Invalid conf_target, must be between 1 and ${MAX_CONF_TARGET}`);
      }
      const mode = parseEstimateMode(estimateMode);
      if (mode === null) {
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"');
      }
      const estimate = ctx.feeEstimator.estimateSmartFee(confTarget, mode, mempool.minFee());
      return estimate.feeRate !== undefined
        ? { feerate: feeRateToCoins(estimate.feeRate), blocks: estimate.blocks }
        : { errors: [...(estimate.errors ?? [])], blocks: estimate.blocks };
    },
  });
}
