/**
 * /rest/address/<address>: the address index's view of one address, with the interface
 * document's field names (including its spelling "Apperances"). Amounts are coins.
 */
import { AddressError, decodeAddress, destinationToScript, encodeDestination, type Destination } from '@cs/consensus';
import { amountToJson } from '../../format/json.ts';
import { JSON_ONLY, type Endpoint, type RestDeps } from '../endpoint.ts';
import { badRequest } from '../errors.ts';
import { indexDisabled, requireSynced } from '../index-gate.ts';
import { expectArgs } from '../params.ts';

export function addressEndpoint({ ctx }: RestDeps): Endpoint {
  const { params, addressIndex } = ctx;
  return {
    group: 'address',
    formats: JSON_ONLY,
    handle({ args }) {
      expectArgs(args, [1], '/rest/address/<address>.json');
      let destination: Destination;
      try {
        destination = decodeAddress(args[0], params.address);
      } catch (e) {
        if (e instanceof AddressError) throw badRequest(`Invalid address: ${args[0]} (${e.message})`);
        throw e;
      }
      if (!addressIndex) throw indexDisabled('Address index is disabled: start csd with -addressindex=1');
      requireSynced(addressIndex.progress());
      const { confirmed, unconfirmed, transactions } = addressIndex.activity(destinationToScript(destination));
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
        },
      };
    },
  };
}
