// ONNX Runtime's graph-optimization cost for bench/onnx_bench.py: session
// creation time with 'all' minus 'disabled' (median of N runs each), and the
// 'extended' graph saved with optimizedModelFilePath. Prints JSON.
const path = require('path');
const ort = require(path.join(__dirname, '..', 'tests', 'models', 'cache', 'node_modules', 'onnxruntime-node'));

async function createMs(model, level, extra) {
  const t0 = process.hrtime.bigint();
  const s = await ort.InferenceSession.create(model, Object.assign({graphOptimizationLevel: level, executionProviders: ['cpu']}, extra || {}));
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (s.release) await s.release();
  return ms;
}

async function main() {
  const [model, outExtended, runs] = [process.argv[2], process.argv[3], Number(process.argv[4] || 5)];
  const med = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const all = [], dis = [];
  for (let i = 0; i < runs; i++) {
    dis.push(await createMs(model, 'disabled'));
    all.push(await createMs(model, 'all'));
  }
  await createMs(model, 'extended', {optimizedModelFilePath: outExtended});
  console.log(JSON.stringify({all_ms: med(all), disabled_ms: med(dis), optimize_ms: med(all) - med(dis)}));
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
