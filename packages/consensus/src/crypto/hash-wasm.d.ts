// hash-wasm's one-algorithm builds (UMD, CommonJS to Node), which ship without types of their own:
// each is the package's whole API for that algorithm. Node's CommonJS lexer does not find their
// minified exports, so they are read through the default import (module.exports).
declare module 'hash-wasm/dist/ripemd160.umd.min.js' {
  const ripemd160: { createRIPEMD160: typeof import('hash-wasm').createRIPEMD160 };
  export default ripemd160;
}

declare module 'hash-wasm/dist/sha1.umd.min.js' {
  const sha1: { createSHA1: typeof import('hash-wasm').createSHA1 };
  export default sha1;
}
