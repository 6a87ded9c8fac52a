/**
 * /rest/address/<address>?from=&to=: the address index's view of one address, with the
 * interface document's field names (including its spelling "Apperances"), and one page of its
 * transactions as Insight's addrs/txs pages them (items `from` to `to`, newest first, with
 * `totalItems`). Amounts are coins.
 */
import { AddressError, decodeAddress, destinationToScript, encodeDestination, type Destination } from '@cs/consensus';
import { amountToJson } from '@cs/runtime/amount';
import { JSON_ONLY, type Endpoint, type RestDeps } from '../endpoint.ts';
import { badRequest } from '../errors.ts';
import { indexDisabled, requireSynced } from '../index-gate.ts';
import { decimalQuery, expectArgs } from '../params.ts';

/** Transactions in a page when `to` is not given, and the most one page holds. */
export const DEFAULT_ADDRESS_PAGE = 50;
export const MAX_ADDRESS_PAGE = 1000;
const MAX_FROM = 2 ** 31 - 1;

export function addressEndpoint({ ctx }: RestDeps): Endpoint {
  const { params, addressIndex } = ctx;
  return {
    group: 'address',
    formats: JSON_ONLY,
    handle({ args, query }) {
      expectArgs(args, [1], '/rest/address/<address>.json');
      let destination: Destination;
      try {
        destination = decodeAddress(args[0], params.address);
      } catch (e) {
        if (e instanceof AddressError) throw badRequest(`Invalid address: ${args[0]} (${e.message})`);
        throw e;
      }
      const from = decimalQuery(query, 'from', 0, 0, MAX_FROM);
      const to = decimalQuery(query, 'to', from + DEFAULT_ADDRESS_PAGE, from + 1, from + MAX_ADDRESS_PAGE);
      if (!addressIndex) throw indexDisabled('Address index is disabled: start csd with -addressindex=1');
      requireSynced(addressIndex.progress());
      const { confirmed, unconfirmed, totalItems, transactions } = addressIndex.activity(destinationToScript(destination), { from, to });
      return {
        json: {
          address: encodeDestination(destination, params.address),
          balance: amountToJson(confirmed.received - confirmed.sent),
          totalReceived: amountToJson(confirmed.received),
          totalSent: amountToJson(confirmed.sent),
          unconfirmedBalance: amountToJson(unconfirmed.balance),
          txApperances: confirmed.txCount,
          unconfirmedTxApperances: unconfirmed.txids.length,
          transactions,
          totalItems,
          from,
          to: from + transactions.length,
        },
      };
    },
  };
}
