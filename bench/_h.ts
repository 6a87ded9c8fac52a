import { createRequire } from 'node:module';
import { ecdsaSign, publicKeyCreate } from '@cs/consensus';
const native = createRequire(import.meta.url)('secp256k1/bindings');
const key = new Uint8Array(32).fill(7); const pub = publicKeyCreate(key, true);
const msgs = Array.from({length: 200}, (_, i) => { const m = new Uint8Array(new ArrayBuffer(32)); m.fill(i+1); return m; });
const sigs = msgs.map(m => ecdsaSign(m, key).signature);
const msgScratch = new Uint8Array(new ArrayBuffer(32)); const pubScratch = new Uint8Array(new ArrayBuffer(33));
function t(name: string, f: (i: number) => void) { const n=3000; for (let i=0;i<500;i++) f(i%200); const t0=performance.now(); for (let i=0;i<n;i++) f(i%200); console.log(name, ((performance.now()-t0)*1000/n).toFixed(2),'us'); }
for (let r=0;r<2;r++) {
t('raw', (i) => native.ecdsaVerify(sigs[i], msgs[i], pub));
t('on-heap msg copy', (i) => native.ecdsaVerify(sigs[i], msgs[i].slice(), pub));
t('on-heap pub copy', (i) => native.ecdsaVerify(sigs[i], msgs[i], pub.slice()));
t('scratch copies', (i) => { msgScratch.set(msgs[i].slice()); pubScratch.set(pub.slice()); native.ecdsaVerify(sigs[i], msgScratch, pubScratch); });
}
