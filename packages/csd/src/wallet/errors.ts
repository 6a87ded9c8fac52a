/**
 * Failures of wallet operations, by kind. The RPC layer turns each kind into Core's error code
 * for the method at hand (Core maps the same failure differently per method: an empty wallet is
 * -6 for sendtoaddress and -4 for fundrawtransaction).
 */
export type WalletErrorKind =
  /** The operation needs private keys and the wallet is locked (Core: -13). */
  | 'locked'
  /** walletpassphrase / walletpassphrasechange with the wrong passphrase (-14). */
  | 'wrong-passphrase'
  /** An encryption command in the wrong state, e.g. walletlock on an unencrypted wallet (-15). */
  | 'wrong-state'
  /** Not enough spendable coins for the amounts and the fee. */
  | 'insufficient-funds'
  /** Any other reason a transaction cannot be created (fee estimation off, amount below dust, too large). */
  | 'create-failed'
  /** A key or address the wallet cannot use (-5). */
  | 'invalid-address-or-key'
  /** A value the wallet refuses (-8). */
  | 'invalid-parameter'
  /** A rescan stopped by abortrescan or by the shutdown (-1). */
  | 'rescan-aborted'
  /** Anything else (-4). */
  | 'wallet';

export class WalletError extends Error {
  override readonly name = 'WalletError';
  constructor(
    readonly kind: WalletErrorKind,
    message: string,
  ) {
    super(message);
  }
}

const UNLOCK_NEEDED = 'Error: Please enter the wallet passphrase with walletpassphrase first.';

export function lockedError(): WalletError {
  return new WalletError('locked', UNLOCK_NEEDED);
}
