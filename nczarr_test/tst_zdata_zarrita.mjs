// tst_zdata_zarrita.mjs: the zarrita side of tst_zdata_zarrita.py (Zarr v3).
//   node tst_zdata_zarrita.mjs write DIR   -> one array per codec chain
//   node tst_zdata_zarrita.mjs read DIR NAME...  -> JSON {name: {shape, data}}
// zarrita 0.7 encodes neither gzip nor crc32c nor shards: those are
// checked in the other direction (we write, zarrita reads).
// Values of element i: (i * 7 + salt) % 100, salt = position in the list.
import * as zarr from "zarrita";
import { FileSystemStore } from "@zarrita/storage";

const cases = [
  ["le_i4", "int32", [{ name: "bytes", configuration: { endian: "little" } }]],
  ["be_f8", "float64", [{ name: "bytes", configuration: { endian: "big" } }]],
  ["tr_u2", "uint16", [{ name: "transpose", configuration: { order: [1, 0] } },
                       { name: "bytes", configuration: { endian: "little" } }]],
  ["dot_i2", "int16", [{ name: "bytes", configuration: { endian: "little" } }]],
  ["zs_f4", "float32", [{ name: "bytes", configuration: { endian: "little" } },
                        { name: "zstd", configuration: { level: 3, checksum: false } }]],
  ["bl_i8", "int64", [{ name: "bytes", configuration: { endian: "little" } },
                      { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } }]],
  ["nb_u1", "uint8", [{ name: "bytes" }]],
  ["zsck_i4", "int32", [{ name: "bytes", configuration: { endian: "big" } },
                         { name: "zstd", configuration: { level: 1, checksum: true } }]],
];

function values(dtype, n, salt) {
  const T = { int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array,
              uint32: Uint32Array, float32: Float32Array, float64: Float64Array, int64: BigInt64Array,
              uint64: BigUint64Array }[dtype];
  const a = new T(n);
  for (let i = 0; i < n; i++) {
    const v = (i * 7 + salt) % 100;
    a[i] = T === BigInt64Array || T === BigUint64Array ? BigInt(v) : v;
  }
  return a;
}

const [cmd, dir, ...names] = process.argv.slice(2);
const store = new FileSystemStore(dir);
const root = zarr.root(store);
if (cmd === "write") {
  await zarr.create(root, { attributes: {} });
  let salt = 0;
  for (const [name, dtype, codecs] of cases) {
    const shape = [13, 7];
    const sep = name.startsWith("dot") ? "." : "/"; // zarrita encodes no gzip
    const arr = await zarr.create(root.resolve(name), {
      shape, chunkShape: [5, 3], dtype, codecs, fillValue: 0, chunkSeparator: sep,
      dimensionNames: ["y", "x"],
    });
    await zarr.set(arr, null, { data: values(dtype, 91, salt), shape, stride: [7, 1] });
    salt++;
  }
  console.log(JSON.stringify(cases.map((c) => c[0])));
} else {
  const out = {};
  for (const name of names) {
    try {
      const arr = await zarr.open(root.resolve(name), { kind: "array" });
      const c = await zarr.get(arr);
      out[name] = { shape: c.shape, data: Array.from(c.data, (x) => (typeof x === "bigint" ? Number(x) : x)) };
    } catch (e) {
      out[name] = { error: String(e) };
    }
  }
  console.log(JSON.stringify(out));
}
