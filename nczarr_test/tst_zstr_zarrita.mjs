// tst_zstr_zarrita.mjs: the zarrita side of tst_zstr_interop.py (v3 strings).
//   node tst_zstr_zarrita.mjs write DIR JSONFILE -> array "s" (dtype string,
//        codec vlen-utf8, shape [n], chunks [3]) created by zarrita; zarrita
//        0.7 cannot encode vlen-utf8, so the chunks' bytes are laid out here
//        (u32 count, then u32 length + UTF-8 bytes per item) and stored
//        through the store; then read back with zarrita as a check
//   node tst_zstr_zarrita.mjs read DIR NAME... -> JSON {name: {shape, data}}
import * as zarr from "zarrita";
import { FileSystemStore } from "@zarrita/storage";
import { readFileSync } from "node:fs";

function vlen(items) {
  const enc = new TextEncoder();
  const parts = items.map((s) => enc.encode(s));
  const n = 4 + parts.reduce((a, p) => a + 4 + p.length, 0);
  const out = new Uint8Array(n);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, items.length, true);
  let pos = 4;
  for (const p of parts) {
    dv.setUint32(pos, p.length, true);
    out.set(p, pos + 4);
    pos += 4 + p.length;
  }
  return out;
}

async function readAll(root, names) {
  const out = {};
  for (const name of names) {
    try {
      const arr = await zarr.open(root.resolve(name), { kind: "array" });
      const c = await zarr.get(arr);
      out[name] = { shape: c.shape, data: Array.from(c.data) };
    } catch (e) {
      out[name] = { error: String(e) };
    }
  }
  return out;
}

const [cmd, dir, ...rest] = process.argv.slice(2);
const store = new FileSystemStore(dir);
const root = zarr.root(store);
if (cmd === "write") {
  const vals = JSON.parse(readFileSync(rest[0], "utf8"));
  await zarr.create(root, { attributes: {} });
  const arr = await zarr.create(root.resolve("s"), {
    shape: [vals.length], chunkShape: [3], dtype: "string", codecs: [{ name: "vlen-utf8" }],
    fillValue: "", dimensionNames: ["n"],
  });
  for (let c = 0; c * 3 < vals.length; c++) {
    const items = vals.slice(3 * c, 3 * c + 3);
    while (items.length < 3) items.push("");
    await store.set(arr.resolve("c/" + c).path, vlen(items));
  }
  console.log(JSON.stringify(await readAll(root, ["s"])));
} else {
  console.log(JSON.stringify(await readAll(root, rest)));
}
