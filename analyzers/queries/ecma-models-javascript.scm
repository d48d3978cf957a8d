; Module-level classes of JavaScript files, for their field declarations (`title;`,
; `body = ''`): model.DataModel. Run by analyzers/extract/ecma_models.py with max start
; depth 1, like ecma-models-typescript.scm (same capture names; the members are read in Python).
;
; Captures:
;   model.class     a class declaration, exported or not
;   model.name      its name
;   model.heritage  its heritage (`extends X`)
;   model.body      the class body

[
  (class_declaration name: (_) @model.name (class_heritage)? @model.heritage body: (class_body) @model.body)
  (export_statement
    declaration: (class_declaration name: (_) @model.name (class_heritage)? @model.heritage
      body: (class_body) @model.body))
] @model.class
