import type { Node, Tree } from 'web-tree-sitter';
import { Yielder } from '../util/yield.js';
import type { LanguageId } from './languages.js';
import { DECISION_NODES, LOGICAL_OPERATORS, NODE_KINDS, kindOf } from './node-kinds.js';

export interface ClassInfo {
  name: string;
  kind: string;
  start_line: number;
  end_line: number;
  methods: number;
  fields: number;
}

export interface FunctionInfo {
  name: string;
  /** "method" inside a class-like node, else "function". */
  kind: 'function' | 'method';
  /** The enclosing class-like node's name ('' for top-level functions). */
  class: string;
  start_line: number;
  end_line: number;
  lines: number;
  params: number;
  /** McCabe: 1 + branch points (if, loops, cases, catch, ternary, &&, ||) in the body, nested functions excluded. */
  complexity: number;
}

export interface FieldInfo {
  name: string;
  class: string;
  line: number;
}

export interface ImportInfo {
  line: number;
  text: string;
}

export interface CodeStructure {
  classes: ClassInfo[];
  functions: FunctionInfo[];
  fields: FieldInfo[];
  imports: ImportInfo[];
}

const IDENTIFIER_TYPES = new Set([
  'identifier',
  'type_identifier',
  'field_identifier',
  'property_identifier',
  'private_property_identifier',
  'constant',
  'name',
  'variable_name',
  'qualified_identifier',
  'scoped_identifier',
  'destructor_name',
  'operator_name',
  'simple_identifier',
]);

/** The declared name of a node: its name field, else the identifier inside its declarator. */
export function declaredName(node: Node): string {
  const direct = node.childForFieldName('name') ?? node.childForFieldName('property');
  if (direct) return direct.text;
  const declarator = node.childForFieldName('declarator');
  if (declarator) {
    if (IDENTIFIER_TYPES.has(declarator.type)) return declarator.text;
    return declaredName(declarator);
  }
  if (node.type === 'impl_item') {
    const type = node.childForFieldName('type');
    const trait = node.childForFieldName('trait');
    return type ? (trait ? `${trait.text} for ${type.text}` : type.text) : '';
  }
  for (const child of node.namedChildren) {
    if (child && IDENTIFIER_TYPES.has(child.type)) return child.text;
  }
  for (const child of node.namedChildren) {
    if (child && /declarator|variable_declaration|property_element/.test(child.type)) {
      const inner = declaredName(child);
      if (inner) return inner;
    }
  }
  return '';
}

/** Names an anonymous function by what it is assigned to (const f = () => …, obj = { f() {} }). */
function functionName(node: Node): string {
  const own = declaredName(node);
  if (
    own &&
    node.type !== 'arrow_function' &&
    node.type !== 'function_expression' &&
    node.type !== 'function'
  )
    return own;
  if (node.type === 'arrow_function' || node.type === 'function_expression' || node.type === 'function') {
    const parent = node.parent;
    if (!parent) return '';
    if (
      parent.type === 'variable_declarator' ||
      parent.type === 'public_field_definition' ||
      parent.type === 'field_definition'
    ) {
      return declaredName(parent);
    }
    if (parent.type === 'pair') return parent.childForFieldName('key')?.text ?? '';
    if (parent.type === 'assignment_expression') return parent.childForFieldName('left')?.text ?? '';
    return own;
  }
  return own;
}

/** Go's type_spec is a class only when it declares a struct or an interface. */
function isClassNode(node: Node, classes: ReadonlySet<string>): boolean {
  if (!classes.has(node.type)) return false;
  if (node.type === 'type_spec') {
    const type = node.childForFieldName('type')?.type;
    return type === 'struct_type' || type === 'interface_type';
  }
  if (
    node.type === 'struct_specifier' ||
    node.type === 'class_specifier' ||
    node.type === 'union_specifier' ||
    node.type === 'enum_specifier'
  ) {
    return node.childForFieldName('body') !== null; // a definition, not a mere reference such as `struct x *p`
  }
  return true;
}

/**
 * A C or C++ prototype: a declaration (`int f(void);`, a member `void g() const;`) whose declarator is
 * a function's, through pointers and references (`char *strdup(const char *);`), but not a function
 * pointer variable (`int (*fp)(int);`, whose function declarator wraps a parenthesised one).
 */
function isPrototype(node: Node, language: LanguageId): boolean {
  if (language !== 'c' && language !== 'cpp') return false;
  if (node.type !== 'declaration' && node.type !== 'field_declaration') return false;
  let declarator = node.childForFieldName('declarator');
  while (declarator && POINTER_DECLARATORS.has(declarator.type))
    declarator = declarator.childForFieldName('declarator') ?? declarator.namedChildren.at(-1) ?? null;
  return (
    declarator?.type === 'function_declarator' &&
    declarator.childForFieldName('declarator')?.type !== 'parenthesized_declarator'
  );
}

const POINTER_DECLARATORS = new Set(['pointer_declarator', 'reference_declarator', 'attributed_declarator']);

function isFieldNode(node: Node, fields: ReadonlySet<string>, language: LanguageId): boolean {
  if (language === 'python') {
    // Class attributes: `x = 1` / `x: int = 1` directly in a class body.
    return (
      node.type === 'expression_statement' &&
      node.parent?.type === 'block' &&
      node.parent.parent?.type === 'class_definition' &&
      node.firstNamedChild?.type === 'assignment'
    );
  }
  if (!fields.has(node.type)) return false;
  // C++ member function declarations are field_declaration nodes too: they are listed as methods.
  return !isPrototype(node, language);
}

function isImportNode(node: Node, imports: ReadonlySet<string>, language: LanguageId): boolean {
  if (imports.has(node.type)) return true;
  if (language === 'ruby' && node.type === 'call') {
    const method = node.childForFieldName('method')?.text;
    return method === 'require' || method === 'require_relative' || method === 'load';
  }
  if (language === 'bash' && node.type === 'command') {
    const name = node.childForFieldName('name')?.text;
    return name === 'source' || name === '.';
  }
  if (language === 'php')
    return (
      node.type === 'require_once_expression' ||
      node.type === 'require_expression' ||
      node.type === 'include_expression' ||
      node.type === 'include_once_expression'
    );
  return false;
}

/** Cyclomatic complexity of a function body, not descending into nested functions. */
export function complexityOf(fn: Node, functionTypes: ReadonlySet<string>): number {
  let complexity = 1;
  const stack: Node[] = [...fn.children.filter((c): c is Node => c !== null)];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (functionTypes.has(node.type)) continue;
    if (node.isNamed ? DECISION_NODES.has(node.type) : LOGICAL_OPERATORS.has(node.type)) complexity++;
    for (const child of node.children) if (child) stack.push(child);
  }
  return complexity;
}

function paramCount(node: Node): number {
  const params =
    node.childForFieldName('parameters') ??
    node.childForFieldName('declarator')?.childForFieldName('parameters');
  if (params) return params.namedChildren.filter((c) => c !== null && !c.type.includes('comment')).length;
  const single = node.childForFieldName('parameter');
  return single ? 1 : 0;
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Classes, functions/methods (with complexity), fields and imports of a parsed file. */
export async function analyzeStructure(
  tree: Tree,
  language: LanguageId,
  yielder: Yielder = new Yielder(),
): Promise<CodeStructure> {
  const kinds = NODE_KINDS[language];
  const classTypes = new Set(kinds.classes);
  const functionTypes = new Set(kinds.functions);
  const fieldTypes = new Set(kinds.fields);
  const importTypes = new Set(kinds.imports);
  const result: CodeStructure = { classes: [], functions: [], fields: [], imports: [] };
  const classInfo = new Map<number, ClassInfo>();

  // First class of each name, for Go methods declared outside their type (was a linear find per method).
  const classByName = new Map<string, ClassInfo>();
  type Owner = { name: string; id: number } | undefined;
  // Explicit stack, not recursion: a deeply nested file (thousands of nested functions, arrays or a
  // long `a+b+…` chain) must not exhaust the call stack. Children are pushed in reverse: same pre-order.
  const stack: { node: Node; owner: Owner; inFunction: boolean }[] = [
    { node: tree.rootNode, owner: undefined, inFunction: false },
  ];
  const visit = (node: Node, owner: Owner, inFunction: boolean) => {
    let nextOwner = owner;
    let nextInFunction = inFunction;
    if (isClassNode(node, classTypes)) {
      const info: ClassInfo = {
        name: declaredName(node) || '<anonymous>',
        kind: kindOf(node.type),
        start_line: node.startPosition.row + 1,
        end_line: node.endPosition.row + 1,
        methods: 0,
        fields: 0,
      };
      result.classes.push(info);
      classInfo.set(node.id, info);
      if (!classByName.has(info.name)) classByName.set(info.name, info);
      nextOwner = { name: info.name, id: node.id };
      nextInFunction = false;
    } else if (functionTypes.has(node.type) || (!inFunction && isPrototype(node, language))) {
      const name = functionName(node);
      // Anonymous callbacks are not worth listing; named ones (const f = () => …) are.
      if (name) {
        // Go declares methods outside the type: the receiver names the owner.
        const receiver = node.type === 'method_declaration' ? node.childForFieldName('receiver') : null;
        const receiverType = receiver?.descendantsOfType('type_identifier')[0]?.text;
        const method = (owner !== undefined && !inFunction) || receiverType !== undefined;
        const ownerName = receiverType ?? owner?.name ?? '';
        const start = node.startPosition.row + 1;
        const end = node.endPosition.row + 1;
        result.functions.push({
          name,
          kind: method ? 'method' : 'function',
          class: method ? ownerName : '',
          start_line: start,
          end_line: end,
          lines: end - start + 1,
          params: paramCount(node),
          complexity: complexityOf(node, functionTypes),
        });
        if (receiverType !== undefined) {
          const info = classByName.get(receiverType);
          if (info) info.methods++;
        } else if (method && owner) {
          const info = classInfo.get(owner.id);
          if (info) info.methods++;
        }
      }
      nextInFunction = true;
    } else if (!inFunction && owner && isFieldNode(node, fieldTypes, language)) {
      const target = language === 'python' ? node.firstNamedChild?.childForFieldName('left') : node;
      result.fields.push({
        name: target ? declaredName(target) || target.text : '',
        class: owner.name,
        line: node.startPosition.row + 1,
      });
      const info = classInfo.get(owner.id);
      if (info) info.fields++;
      return; // a field's type or initializer holds no members of the class
    } else if (isImportNode(node, importTypes, language)) {
      result.imports.push({ line: node.startPosition.row + 1, text: oneLine(node.text) });
      return;
    }
    const children = node.namedChildren;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child) stack.push({ node: child, owner: nextOwner, inFunction: nextInFunction });
    }
  };
  // A big file has hundreds of thousands of nodes: the walk gives the event loop a turn now and then.
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    visit(frame.node, frame.owner, frame.inFunction);
    if (yielder.due()) await yielder.pause();
  }
  return result;
}
