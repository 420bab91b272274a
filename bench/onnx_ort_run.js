// ONNX Runtime inference time for bench/onnx_bench.py: session.run of each
// (model, graphOptimizationLevel) pair given, on the same seeded random
// inputs, one intra-op and one inter-op thread, sequential execution. After
// WARM runs of every session, the sessions are run in turn (interleaved, so
// machine noise hits all of them alike) RUNS times; prints JSON with the
// median and minimum milliseconds of each pair, in argument order.
// Usage: node onnx_ort_run.js RUNS WARM INPUTS_JSON MODEL:LEVEL...
//   INPUTS_JSON: {"name": {"type": "float32", "dims": [..]}, ...}; floats are
//   seeded uniform in [-1, 1), integers are filled with "value" (default 0).
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, '..', 'tests', 'models', 'cache', 'node_modules', 'onnxruntime-node'));

function feedsFor(spec) {
  let seed = 12345;
  const rnd = () => { seed = (seed * 1103515245 + 12345) >>> 0; return (seed >>> 8) / (1 << 24) * 2 - 1; };
  const feeds = {};
  for (const [name, s] of Object.entries(spec)) {
    const n = s.dims.reduce((a, b) => a * b, 1);
    let data;
    if (s.type === 'float32') { data = new Float32Array(n); for (let i = 0; i < n; i++) data[i] = rnd(); }
    else if (s.type === 'int64') data = new BigInt64Array(n).fill(BigInt(s.value || 0));
    else data = new Int32Array(n).fill(s.value || 0);
    feeds[name] = new ort.Tensor(s.type, data, s.dims);
  }
  return feeds;
}

async function main() {
  const [runs, warm, inputsJson] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4]];
  const feeds = feedsFor(JSON.parse(fs.readFileSync(inputsJson, 'utf8')));
  const sessions = [];
  for (const arg of process.argv.slice(5)) {
    const i = arg.lastIndexOf(':');
    const [model, level] = [arg.slice(0, i), arg.slice(i + 1)];
    sessions.push(await ort.InferenceSession.create(model, {
      graphOptimizationLevel: level, executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1,
      executionMode: 'sequential', logSeverityLevel: 3}));
  }
  for (const s of sessions) for (let k = 0; k < warm; k++) await s.run(feeds);
  const times = sessions.map(() => []);
  for (let r = 0; r < runs; r++) {
    for (let j = 0; j < sessions.length; j++) {
      const t0 = process.hrtime.bigint();
      await sessions[j].run(feeds);
      times[j].push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  const med = (a) => { const b = a.slice().sort((x, y) => x - y); return b[Math.floor(b.length / 2)]; };
  console.log(JSON.stringify(times.map((t) => ({median_ms: med(t), min_ms: Math.min(...t)}))));
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
