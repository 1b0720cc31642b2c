/**
 * PGlite's CommonJS build loads Node built-ins with `await import("fs")` and
 * the like. Jest runs each test file in a vm context where a dynamic import
 * fails unless Node runs with --experimental-vm-modules, and that flag in turn
 * makes Jest refuse to require ESM-only packages (jose, uuid). So, for PGlite
 * only, each `import("<builtin>")` becomes `process.getBuiltinModule`, which
 * returns the same module with no loader involved. Only built-ins are touched.
 */
const { builtinModules } = require('node:module');
const { createHash } = require('node:crypto');

const BUILTIN_IMPORT = /\bimport\("((?:node:)?[a-z_/]+)"\)/g;
const builtins = new Set(builtinModules);

function rewrite(source) {
  return source.replace(BUILTIN_IMPORT, (call, name) =>
    builtins.has(name.replace(/^node:/, '')) ? `Promise.resolve(process.getBuiltinModule(${JSON.stringify(name)}))` : call,
  );
}

module.exports = {
  process(sourceText) {
    return { code: rewrite(sourceText) };
  },
  getCacheKey(sourceText, sourcePath) {
    return createHash('sha256').update('builtin-import-1').update(sourcePath).update(sourceText).digest('hex');
  },
};
