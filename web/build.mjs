// Builds the page into one folder (default ../services/web/static/): app.js
// (src/main.ts and everything it imports, the generated clients included),
// app.css, index.html and icon.svg. The same sources and esbuild version give
// the same bytes, which `make web-check` relies on.
//
// usage: node build.mjs [OUT_DIR]
import { copyFile, mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, "..", "services", "web", "static"));

await mkdir(out, { recursive: true });
await build({
  absWorkingDir: here,
  entryPoints: { app: "src/main.ts", style: "src/style.css" },
  outdir: out,
  entryNames: "[name]",
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  platform: "browser",
  charset: "utf8",
  legalComments: "none",
  logLevel: "warning",
});
for (const file of ["index.html", "icon.svg"]) {
  await copyFile(join(here, "src", file), join(out, file));
}
