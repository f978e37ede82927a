const js = require("/tmp/fx/node_modules/@eslint/js");
module.exports = [js.configs.recommended, { rules: { eqeqeq: "error", "no-console": "warn" }, languageOptions: { sourceType: "commonjs", globals: { console: "readonly" } } }];
