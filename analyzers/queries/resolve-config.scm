; Settings that the module resolver reads from JavaScript/TypeScript configuration files
; (vite.config.*, webpack.config.*, vue.config.js, svelte.config.*, nuxt.config.*).
; Compiles for the JavaScript and TypeScript grammars. Run by analyzers/resolve_configs.py,
; which never runs the file: it evaluates only literal values (strings, __dirname,
; path.resolve/join, fileURLToPath(new URL('./x', import.meta.url)), top-level constants).
;
; The host computes each setting's key path (the keys of the enclosing object pairs, for
; example ("resolve", "alias") or ("kit", "files", "lib")) and keeps the paths that mean
; something for the kind of file: resolve.alias for Vite/webpack/vue.config, kit.alias and
; kit.files.lib for SvelteKit, alias/srcDir/future.compatibilityVersion for Nuxt.
;
; Captures:
;   setting          a pair whose key the resolver may read
;   setting.key      its key (property_identifier or string)
;   setting.value    its value (any expression)
;   chain            a webpack-chain call `config.resolve.alias.set('key', value)`
;   chain.object     the callee's object (`config.resolve.alias`, or a previous `.set(...)`)
;   chain.key        the alias key (a string)
;   chain.value      the alias target
;   const.name       a top-level `const NAME = value` (a target may name one)
;   const.value      its value

(pair
  key: [(property_identifier) (string)] @setting.key
  value: (_) @setting.value
  (#match? @setting.key "^[\"']?(alias|srcDir|lib|compatibilityVersion|modules)[\"']?$")) @setting

(call_expression
  function: (member_expression
    object: (_) @chain.object
    property: (property_identifier) @_set (#eq? @_set "set"))
  arguments: (arguments . (string) @chain.key . (_) @chain.value .)) @chain

(program
  (lexical_declaration
    (variable_declarator name: (identifier) @const.name value: (_) @const.value)))

(program
  (variable_declaration
    (variable_declarator name: (identifier) @const.name value: (_) @const.value)))
