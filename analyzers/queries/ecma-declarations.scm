; What a TypeScript declaration file (or the body of a `declare module 'x' { ... }` block)
; declares at its top level, for the rule that TypeScript applies to both: every top-level
; declaration is exported unless the module has an export declaration (`export { ... }`,
; `export * from`, `export =`, `export default x`). Read by analyzers/extract/declarations.py
; on the top-level statements of the file or the block, one statement at a time.
;
; Captures:
;   declared        the name of a top-level declaration (`declare function f`, `declare const a`,
;                   `interface I`, `type T`, `declare class C`, `declare enum E`,
;                   `declare namespace N`, with or without `declare`)
;   export.clause   an export declaration (no declaration of its own): turns the rule off
;   module.name     the name string of a `declare module 'x'` block; module.body its body
;   module.item     a top-level import or export (the file is a module, not a global script)
;   export.assigned the name `export = N` exports (a CommonJS-style declaration file)
;   namespace.name  the name of a top-level `declare namespace N { ... }`; namespace.body its body

(ambient_declaration
  [
    (function_signature name: (_) @declared)
    (lexical_declaration (variable_declarator name: (identifier) @declared))
    (variable_declaration (variable_declarator name: (identifier) @declared))
    (class_declaration name: (_) @declared)
    (abstract_class_declaration name: (_) @declared)
    (enum_declaration name: (_) @declared)
    (interface_declaration name: (_) @declared)
    (type_alias_declaration name: (_) @declared)
    (internal_module name: (identifier) @declared)
    (module name: (identifier) @declared)
  ])

; (in an ambient module block `declare` is implied: `const x: number;`)
[
  (function_signature name: (_) @declared)
  (lexical_declaration (variable_declarator name: (identifier) @declared))
  (variable_declaration (variable_declarator name: (identifier) @declared))
  (interface_declaration name: (_) @declared)
  (type_alias_declaration name: (_) @declared)
  (enum_declaration name: (_) @declared)
  (class_declaration name: (_) @declared)
  (abstract_class_declaration name: (_) @declared)
  (internal_module name: (identifier) @declared)
]

(export_statement !declaration) @export.clause

(ambient_declaration (module name: (string) @module.name body: (statement_block) @module.body))

[(import_statement) (export_statement)] @module.item

(export_statement "=" . (identifier) @export.assigned)

(ambient_declaration (internal_module name: (identifier) @namespace.name body: (statement_block) @namespace.body))
(expression_statement (internal_module name: (identifier) @namespace.name body: (statement_block) @namespace.body))
