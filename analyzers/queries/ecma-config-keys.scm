; Settings of a framework's configuration file (next.config.*, svelte.config.*, nuxt.config.*,
; nitro.config.*) for the file-based routes (analyzers/routes_files.py): every property of an
; object literal, and module-level string constants a shorthand property may name. Which
; object a property is in (its dotted key) and whether a function computes it is decided in
; Python.
;
; Captures:
;   key / value     a property `key: value` (its key an identifier or a string)
;   short           a shorthand property `{ basePath }`
;   const.name / const.value   `const X = '...'`

(pair
  key: [(property_identifier) (string)] @key
  value: (_) @value)

(shorthand_property_identifier) @short

(variable_declarator
  name: (identifier) @const.name
  value: [(string) (template_string)] @const.value)
