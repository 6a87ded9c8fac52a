/** Placeholder ids the help examples show. */
export const SOME_BLOCK_HASH = '00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09';
export const SOME_TXID = 'a08e6907dbbd3d809776dbfc5d82e371b764ed838b5655e72f463568df1aadf0';
