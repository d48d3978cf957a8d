; TypeScript and TSX additions to body-ecma.scm (same captures, same `use` settings): a
; method's decorators (in these grammars they precede the method in the class body), and
; types, where a literal is no setting.

((class_body (decorator) @function.decorator . (method_definition) @function.decorated)
 (#set! use "pure"))
((class_body (decorator) @function.decorator . (decorator) . (method_definition) @function.decorated)
 (#set! use "pure"))
((class_body (comment) @function.doc . (method_definition) @function.documented)
 (#set! use "pure"))
((abstract_class_declaration name: (_) @method.class body: (class_body (method_definition) @method))
 (#set! use "pure"))

([(type_annotation) (type_alias_declaration) (interface_declaration) (type_arguments) (literal_type)
  (ambient_declaration) (enum_declaration)] @skip
 (#set! use "literal"))
