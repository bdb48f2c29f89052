import type { LanguageId } from './languages.js';

/** Which tree-sitter node types mean what, per language. Names are the grammars' own. */
export interface NodeKinds {
  classes: readonly string[];
  functions: readonly string[];
  fields: readonly string[];
  imports: readonly string[];
}

const JS_LIKE: NodeKinds = {
  classes: [
    'class_declaration',
    'abstract_class_declaration',
    'class',
    'interface_declaration',
    'enum_declaration',
  ],
  functions: [
    'function_declaration',
    'generator_function_declaration',
    'method_definition',
    'arrow_function',
    'function_expression',
    'function',
    // Declarations without a body (.d.ts files, overloads, interface and abstract members): a
    // declaration file's API is all signatures.
    'function_signature',
    'method_signature',
    'abstract_method_signature',
  ],
  fields: ['public_field_definition', 'field_definition', 'property_signature'],
  imports: ['import_statement'],
};

export const NODE_KINDS: Record<LanguageId, NodeKinds> = {
  typescript: JS_LIKE,
  tsx: JS_LIKE,
  javascript: JS_LIKE,
  python: {
    classes: ['class_definition'],
    functions: ['function_definition'],
    fields: [],
    imports: ['import_statement', 'import_from_statement'],
  },
  java: {
    classes: [
      'class_declaration',
      'interface_declaration',
      'enum_declaration',
      'record_declaration',
      'annotation_type_declaration',
    ],
    functions: ['method_declaration', 'constructor_declaration'],
    fields: ['field_declaration'],
    imports: ['import_declaration'],
  },
  go: {
    // Every named type (struct, interface, `type HandlerFunc func(…)`, `type ConnState int`, aliases).
    classes: ['type_spec', 'type_alias'],
    // An interface's methods (method_elem; method_spec in older grammars) are its members.
    functions: ['function_declaration', 'method_declaration', 'method_elem', 'method_spec'],
    fields: ['field_declaration'],
    imports: ['import_spec'],
  },
  rust: {
    classes: ['struct_item', 'enum_item', 'trait_item', 'impl_item', 'union_item'],
    // A trait's required methods have a signature and no body.
    functions: ['function_item', 'function_signature_item'],
    fields: ['field_declaration'],
    imports: ['use_declaration', 'extern_crate_declaration'],
  },
  c: {
    classes: ['struct_specifier', 'union_specifier', 'enum_specifier'],
    functions: ['function_definition'],
    fields: ['field_declaration'],
    imports: ['preproc_include'],
  },
  cpp: {
    classes: ['class_specifier', 'struct_specifier', 'union_specifier', 'enum_specifier'],
    functions: ['function_definition'],
    fields: ['field_declaration'],
    imports: ['preproc_include', 'using_declaration'],
  },
  csharp: {
    classes: [
      'class_declaration',
      'interface_declaration',
      'struct_declaration',
      'enum_declaration',
      'record_declaration',
    ],
    functions: ['method_declaration', 'constructor_declaration', 'local_function_statement'],
    fields: ['field_declaration', 'property_declaration'],
    imports: ['using_directive'],
  },
  ruby: {
    classes: ['class', 'module'],
    functions: ['method', 'singleton_method'],
    fields: [],
    imports: [],
  },
  php: {
    classes: ['class_declaration', 'interface_declaration', 'trait_declaration', 'enum_declaration'],
    functions: ['function_definition', 'method_declaration'],
    fields: ['property_declaration'],
    imports: ['namespace_use_declaration'],
  },
  bash: {
    classes: [],
    functions: ['function_definition'],
    fields: [],
    imports: [],
  },
};

/** Branch points for cyclomatic complexity, across all grammars (each adds one path). */
export const DECISION_NODES = new Set([
  'if_statement',
  'elif_clause',
  'else_if_clause',
  'if_expression',
  'if_clause',
  'if',
  'elsif',
  'unless',
  'if_modifier',
  'unless_modifier',
  'for_statement',
  'for_in_statement',
  'for_of_statement',
  'enhanced_for_statement',
  'foreach_statement',
  'for_range_loop',
  'c_style_for_statement',
  'for_expression',
  'for',
  'while_statement',
  'while_expression',
  'while',
  'until',
  'while_modifier',
  'until_modifier',
  'loop_expression',
  'do_statement',
  'switch_case',
  'case_clause',
  'case_statement',
  'case_item',
  'switch_label',
  'switch_section',
  'switch_expression_arm',
  'expression_case',
  'type_case',
  'communication_case',
  'match_arm',
  'when',
  'catch_clause',
  'except_clause',
  'rescue',
  'conditional_expression',
  'ternary_expression',
  'conditional',
]);

/** Short-circuit operators (anonymous tokens) that add a path too. */
export const LOGICAL_OPERATORS = new Set(['&&', '||', 'and', 'or']);

/** Turns a node type into a short kind: class_declaration → class, struct_item → struct. */
export function kindOf(nodeType: string): string {
  if (nodeType === 'type_spec' || nodeType === 'type_alias') return 'type';
  return nodeType.replace(/_(declaration|definition|specifier|item|spec|statement)$/, '');
}

/** Go's type declarations by what they declare: struct, interface, or type (ctags' kinds too). */
export const GO_TYPE_KINDS: Readonly<Record<string, string>> = {
  struct_type: 'struct',
  interface_type: 'interface',
};
