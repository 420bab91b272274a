// Runs an ONNX model with ONNX Runtime for Node (CPU, graph optimizations
// disabled) on inputs described by a JSON file {name: {type, dims, file}}
// (raw little-endian data) and writes each output as OUT_DIR/NAME.bin plus
// OUT_DIR/outputs.json. Used by run_e2e.py to compare with `passage run`.
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, 'cache', 'node_modules', 'onnxruntime-node'));

async function main() {
  const [model, inputsJson, outDir] = process.argv.slice(2);
  const spec = JSON.parse(fs.readFileSync(inputsJson, 'utf8'));
  const feeds = {};
  for (const [name, s] of Object.entries(spec)) {
    const buf = fs.readFileSync(s.file);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const data = s.type === 'float32' ? new Float32Array(ab) : s.type === 'int64' ? new BigInt64Array(ab) : new Int32Array(ab);
    feeds[name] = new ort.Tensor(s.type, data, s.dims);
  }
  const session = await ort.InferenceSession.create(model, {graphOptimizationLevel: 'disabled', executionProviders: ['cpu']});
  const results = await session.run(feeds);
  const meta = [];
  for (const name of session.outputNames) {
    const t = results[name];
    const file = path.join(outDir, meta.length + '.bin');
    fs.writeFileSync(file, Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    meta.push({name, type: t.type, dims: t.dims, file});
  }
  fs.writeFileSync(path.join(outDir, 'outputs.json'), JSON.stringify(meta));
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
